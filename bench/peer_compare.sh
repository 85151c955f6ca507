#!/bin/bash
# Whole-process comparison with the peer engine gabriele-mastrapasqua/qwen3-tts (docs/benchmarks.md):
# text -> 50 frames on the real-shape 0.6B random checkpoint, 2 threads, settings alternating.
# PEER: the peer binary built outside this repo (make blas SIMD=avx512bf16); M: the checkpoint.
M=${M:-build/generated/real-0.6b-custom_voice}
PEER=${PEER:?set PEER to the peer engine binary}
Q=${Q:-build/qwen3tts}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
T="Hello there, this is a short test sentence for timing the engines."
for rep in 1 2 3; do
  /usr/bin/time -f "ours-bf16 wall %e user %U rss %M" $Q speak --model $M --speaker aiden --text "$T" --seed 1 --max-frames 50 --threads 2 --out "$out/ours.wav" 2>&1 | grep -E "wall|real-time" | tr '\n' ' '; echo
  /usr/bin/time -f "peer-bf16 wall %e user %U rss %M" $PEER -d $M -t "$T" -s aiden -m 50 -j 2 --seed 1 -o "$out/peer.wav" 2>&1 | grep -E "wall|RTF|TTFA" | tr '\n' ' '; echo
  /usr/bin/time -f "ours-q8 wall %e user %U rss %M" $Q speak --model $M --speaker aiden --text "$T" --seed 1 --max-frames 50 --threads 2 --quant q8 --out "$out/ours.wav" 2>&1 | grep -E "wall|real-time" | tr '\n' ' '; echo
  /usr/bin/time -f "ours-q4 wall %e user %U rss %M" $Q speak --model $M --speaker aiden --text "$T" --seed 1 --max-frames 50 --threads 2 --quant q4 --out "$out/ours.wav" 2>&1 | grep -E "wall|real-time" | tr '\n' ' '; echo
  /usr/bin/time -f "peer-int8 wall %e user %U rss %M" $PEER -d $M -t "$T" -s aiden -m 50 -j 2 --seed 1 --int8 -o "$out/peer.wav" 2>&1 | grep -E "wall|RTF|TTFA" | tr '\n' ' '; echo
  /usr/bin/time -f "peer-int8-stream wall %e user %U rss %M" $PEER -d $M -t "$T" -s aiden -m 50 -j 2 --seed 1 --int8 --stream -o "$out/peer.wav" 2>&1 | grep -E "wall|RTF|TTFA" | tr '\n' ' '; echo
done
