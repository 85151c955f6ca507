"""Qwen3TTSModel: the official qwen_tts.Qwen3TTSModel interface (method names, arguments,
defaults, batching rules and return values; qwen_tts/inference/qwen3_tts_model.py) over the
qwen3tts C API. Differences are listed in python/README.md."""

import contextlib
import ctypes
import json
import os
import threading
import warnings
from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from . import _lib, reference_audio
from ._handle import Closable, Handle
from .errors import invalid_argument, unsupported
from .stream import AudioStream
from .voice import Voice

# Generation keyword arguments of the official generate_* methods, and ours (seed, codec_decode,
# segment_chars, codec_overlap).
_GENERATION_KEYS = (
    "do_sample",
    "top_k",
    "top_p",
    "temperature",
    "repetition_penalty",
    "subtalker_dosample",
    "subtalker_top_k",
    "subtalker_top_p",
    "subtalker_temperature",
    "max_new_tokens",
    "seed",
    "codec_decode",
    "segment_chars",
    "codec_overlap",
)
# from_pretrained keywords of the official loader (forwarded there to transformers) that mean
# nothing here: accepted with a warning, so that calling code runs unchanged.
_IGNORED_LOAD_KEYS = ("device_map", "dtype", "torch_dtype", "attn_implementation", "device")


@dataclass(frozen=True)
class ModelInfo:
    """What a checkpoint is; `model.model.tts_model_type` reads as in the official package."""

    dir: str
    tts_model_type: str  # "custom_voice", "voice_design" or "base"
    tts_model_size: str  # "0.6B", "1.7B"
    hidden_size: int
    talker_layers: int
    speakers: Tuple[str, ...]
    speaker_dialects: Tuple[str, ...]  # parallel to speakers: dialect or ""
    languages: Tuple[str, ...]
    dialects: Tuple[str, ...]
    takes_instruction: bool
    weight_bytes: int
    n_codebook: int
    codebook_size: int
    sample_rate: int
    quant: str  # the load option in effect, normalised ("bf16", "talker=q4,predictor=q8")
    codec_conv: str  # the load option in effect ("direct", "winograd")
    tokenizer_type: str = "qwen3_tts_tokenizer_12hz"


def _f32(x):
    """A C float as the shortest decimal that reads back as it (0.9, not 0.8999999761581421)."""
    return float(str(np.float32(x)))


def _strings(ptr, n):
    return tuple(_lib.decode(ptr[i]) for i in range(n))


def _ensure_list(x):
    return x if isinstance(x, list) else [x]


def _per_item(value, n, default):
    """The official broadcasting: a list as is, a scalar (or None: default) for every item."""
    if isinstance(value, list):
        return value
    return [value if value is not None else default] * n


def _broadcast(name_values, n):
    """Lists of length 1 repeated to the batch size n; a mismatch is an error naming all."""
    out = [v * n if len(v) == 1 and n > 1 else v for _, v in name_values]
    if any(len(v) != n for v in out):
        sizes = ", ".join("%s=%d" % (name, len(v)) for (name, _), v in zip(name_values, out))
        raise invalid_argument("Batch size mismatch: text=%d, %s" % (n, sizes))
    return out


class _Synthesizers:
    """Idle C synthesizers for reuse: one serves one request at a time, so each call takes one
    (or makes a new one) and gives it back after."""

    def __init__(self, model_handle, threads):
        self._model = model_handle
        self._threads = threads
        self._idle = []
        self._lock = threading.Lock()
        self._closed = False

    @contextlib.contextmanager
    def get(self):
        with self._lock:
            synth = self._idle.pop() if self._idle else None
        if synth is None:
            out = ctypes.c_void_p()
            with self._model as model:
                _lib.check(
                    _lib.lib().qwen3tts_synthesizer_new(model, self._threads, ctypes.byref(out))
                )
            synth = out.value
        try:
            yield synth
        finally:
            with self._lock:
                keep = not self._closed
                if keep:
                    self._idle.append(synth)
            if not keep:
                _lib.lib().qwen3tts_synthesizer_free(synth)

    def close(self):
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for synth in idle:
            _lib.lib().qwen3tts_synthesizer_free(synth)


@dataclass
class _Request:
    text: str
    language: str = None
    speaker: str = None
    instruct: str = None
    voice: Voice = None


class Qwen3TTSModel(Closable):
    """A loaded Qwen3-TTS checkpoint (CustomVoice, VoiceDesign or Base).

    Thread-safe: calls from several threads run at once (each on its own synthesizer). The
    checkpoint is memory-mapped once and shared. close() (or a `with` block) frees it; calls
    still running finish first."""

    def __init__(self, ptr, threads):
        # Not for direct use: see from_pretrained.
        self._handle = Handle(ptr, _lib.lib().qwen3tts_model_free, "model")
        self._synths = _Synthesizers(self._handle, threads)
        self.threads = threads
        self.device = "cpu"
        info = _lib.ModelInfo(struct_size=ctypes.sizeof(_lib.ModelInfo))
        with self._handle as p:
            _lib.check(_lib.lib().qwen3tts_model_get_info(p, ctypes.byref(info)))
            self._defaults = _lib.Options()
            _lib.lib().qwen3tts_options_init(
                p, ctypes.byref(self._defaults), ctypes.sizeof(_lib.Options)
            )
        self.model = self.info = ModelInfo(
            dir=_lib.decode(info.dir),
            tts_model_type=_lib.decode(info.type),
            tts_model_size=_lib.decode(info.size),
            hidden_size=info.hidden_size,
            talker_layers=info.talker_layers,
            speakers=_strings(info.speakers, info.n_speakers),
            speaker_dialects=_strings(info.speaker_dialects, info.n_speakers),
            languages=_strings(info.languages, info.n_languages),
            dialects=_strings(info.dialects, info.n_dialects),
            takes_instruction=bool(info.takes_instruction),
            weight_bytes=info.weight_bytes,
            n_codebook=info.n_codebook,
            codebook_size=info.codebook_size,
            sample_rate=info.sample_rate,
            quant=_lib.decode(info.quant),
            codec_conv=_lib.decode(info.codec_conv),
        )
        self.sample_rate = info.sample_rate
        d = self._defaults
        # The checkpoint's generation_config.json, under the official names.
        self.generate_defaults = dict(
            do_sample=bool(d.talker.do_sample),
            top_k=d.talker.top_k,
            top_p=_f32(d.talker.top_p),
            temperature=_f32(d.talker.temperature),
            repetition_penalty=_f32(d.talker.repetition_penalty),
            subtalker_dosample=bool(d.predictor.do_sample),
            subtalker_top_k=d.predictor.top_k,
            subtalker_top_p=_f32(d.predictor.top_p),
            subtalker_temperature=_f32(d.predictor.temperature),
        )
        max_new_tokens = d.max_frames + 1 if d.max_frames > 0 else _configured_max_new_tokens(
            self.info.dir
        )
        if max_new_tokens is not None:
            self.generate_defaults["max_new_tokens"] = max_new_tokens

    @classmethod
    def from_pretrained(
        cls,
        pretrained_model_name_or_path,
        quant=None,
        threads=0,
        pretokenizer=None,
        mmap=True,
        copy_frame_weights=True,
        codec_conv=None,
        **kwargs,
    ):
        """Loads a checkpoint directory or a Hugging Face repo id ("Qwen/Qwen3-TTS-12Hz-0.6B-
        CustomVoice"; downloaded into the hub cache on first use).

        threads: CPU threads per request (0 = all online CPUs). quant: None or "bf16" (the
        weights as stored, exact), "q8" or "q4" (quantized at load), or per component
        "talker=q4,predictor=q8" (docs/quantization.md). pretokenizer: None = "qwen2", or
        "mistral_fixed". mmap: map the checkpoint (True) or read it into memory.
        copy_frame_weights: with mmap, copy the talker's and code predictor's weights into
        memory (True) or read them through the mapping (False: fast start, little memory, for
        cloning voices; synthesis slower). codec_conv: None = "direct", or "winograd" (the codec's
        7-tap convolutions by Winograd F(4,7): faster decoding, waveform within 5e-5; docs/codec.md).
        The official loader's transformers arguments (device_map, dtype, attn_implementation)
        are accepted and ignored."""
        if quant is not None and not isinstance(quant, str):
            raise invalid_argument("quant must be None or a string such as 'q8', got %r" % (quant,))
        if codec_conv is not None and not isinstance(codec_conv, str):
            raise invalid_argument(
                "codec_conv must be None, 'direct' or 'winograd', got %r" % (codec_conv,)
            )
        for key in kwargs:
            if key not in _IGNORED_LOAD_KEYS:
                raise TypeError("from_pretrained() got an unexpected keyword argument %r" % key)
            warnings.warn(
                "qwen3tts runs on the CPU in the checkpoint's dtype; %s=%r is ignored"
                % (key, kwargs[key]),
                stacklevel=2,
            )
        if not isinstance(threads, int) or threads < 0:
            raise invalid_argument("threads must be an int >= 0 (0 = all online CPUs)")
        options = _lib.LoadOptions()
        _lib.lib().qwen3tts_load_options_init(ctypes.byref(options), ctypes.sizeof(options))
        options.pretokenizer = _lib.encode(pretokenizer)
        options.mmap = 1 if mmap else 0
        options.quant = _lib.encode(quant)
        options.copy_frame_weights = 1 if copy_frame_weights else 0
        options.codec_conv = _lib.encode(codec_conv)
        out = ctypes.c_void_p()
        _lib.check(
            _lib.lib().qwen3tts_model_load(
                _lib.encode(os.fspath(pretrained_model_name_or_path)),
                ctypes.byref(options),
                ctypes.byref(out),
            )
        )
        try:
            return cls(out.value, threads)
        except BaseException:
            _lib.lib().qwen3tts_model_free(out.value)
            raise

    # ---- lifetime ---------------------------------------------------------------------------

    def close(self):
        """Frees the model (after the calls still running); later calls are an error."""
        self._synths.close()
        self._handle.close()

    # ---- what the model supports --------------------------------------------------------------

    def get_supported_speakers(self) -> List[str]:
        """Speaker names of a CustomVoice model, sorted, lower case ([] for the others)."""
        return sorted(s.lower() for s in self.info.speakers)

    def get_supported_languages(self) -> List[str]:
        """Language names ("auto" included), sorted, lower case."""
        return sorted(s.lower() for s in self.info.languages)

    # ---- the three variants -------------------------------------------------------------------

    def generate_custom_voice(
        self, text, speaker, language=None, instruct=None, non_streaming_mode=True, **kwargs
    ) -> Tuple[List[np.ndarray], int]:
        """CustomVoice: text(s) in a named speaker's voice (get_supported_speakers()),
        optionally steered by an instruction (1.7B). Returns (wavs, sample_rate)."""
        reqs = self._custom_voice_requests(text, speaker, language, instruct)
        return self._generate(reqs, non_streaming_mode, kwargs)

    def generate_voice_design(
        self, text, instruct, language=None, non_streaming_mode=True, **kwargs
    ) -> Tuple[List[np.ndarray], int]:
        """VoiceDesign: text(s) in a voice described by the instruction(s)."""
        reqs = self._voice_design_requests(text, instruct, language)
        return self._generate(reqs, non_streaming_mode, kwargs)

    def generate_voice_clone(
        self,
        text,
        language=None,
        ref_audio=None,
        ref_text=None,
        x_vector_only_mode=False,
        voice_clone_prompt=None,
        non_streaming_mode=False,
        **kwargs,
    ) -> Tuple[List[np.ndarray], int]:
        """Base: text(s) in the voice of a reference recording, given as ref_audio (+ ref_text,
        or x_vector_only_mode=True) or as voice_clone_prompt (create_voice_clone_prompt's list,
        or one Voice)."""
        reqs, owned = self._voice_clone_requests(
            text, language, ref_audio, ref_text, x_vector_only_mode, voice_clone_prompt
        )
        try:
            return self._generate(reqs, non_streaming_mode, kwargs)
        finally:
            for v in owned:
                v.close()

    def create_voice_clone_prompt(
        self, ref_audio, ref_text=None, x_vector_only_mode=False
    ) -> List[Voice]:
        """One Voice per reference audio (a path, base64 audio or (samples, sample_rate));
        ref_text and x_vector_only_mode are scalars or per-reference lists."""
        self._require("base", "create_voice_clone_prompt")
        audios = _ensure_list(ref_audio)
        texts = _per_item(ref_text, len(audios), None)
        modes = _per_item(x_vector_only_mode, len(audios), False)
        if len(texts) != len(audios) or len(modes) != len(audios):
            raise invalid_argument(
                "Batch size mismatch: ref_audio=%d, ref_text=%d, x_vector_only_mode=%d"
                % (len(audios), len(texts), len(modes))
            )
        voices = []
        try:
            for i, (audio, rtext, xvec) in enumerate(zip(audios, texts, modes)):
                if not xvec and not rtext:
                    raise invalid_argument(
                        "ref_text is required when x_vector_only_mode=False (ICL mode). "
                        "Bad index=%d" % i
                    )
                voices.append(self._clone(audio, rtext, bool(xvec)))
        except BaseException:
            for v in voices:
                v.close()
            raise
        return voices

    # ---- streaming ----------------------------------------------------------------------------

    def stream_custom_voice(
        self, text, speaker, language=None, instruct=None, non_streaming_mode=True, **kwargs
    ) -> AudioStream:
        """generate_custom_voice for one text, as an AudioStream of chunks."""
        self._require_single(text)
        reqs = self._custom_voice_requests(text, speaker, language, instruct)
        return self._stream(reqs[0], non_streaming_mode, kwargs, [])

    def stream_voice_design(
        self, text, instruct, language=None, non_streaming_mode=True, **kwargs
    ) -> AudioStream:
        """generate_voice_design for one text, as an AudioStream of chunks."""
        self._require_single(text)
        reqs = self._voice_design_requests(text, instruct, language)
        return self._stream(reqs[0], non_streaming_mode, kwargs, [])

    def stream_voice_clone(
        self,
        text,
        language=None,
        ref_audio=None,
        ref_text=None,
        x_vector_only_mode=False,
        voice_clone_prompt=None,
        non_streaming_mode=False,
        **kwargs,
    ) -> AudioStream:
        """generate_voice_clone for one text, as an AudioStream of chunks."""
        self._require_single(text)
        reqs, owned = self._voice_clone_requests(
            text, language, ref_audio, ref_text, x_vector_only_mode, voice_clone_prompt
        )
        return self._stream(reqs[0], non_streaming_mode, kwargs, owned)

    # ---- requests -----------------------------------------------------------------------------

    def _require(self, model_type, method):
        if self.info.tts_model_type != model_type:
            raise unsupported(
                "this is a %s model (%s); %s needs a %s model"
                % (self.info.tts_model_type, self.info.dir, method, model_type)
            )

    @staticmethod
    def _require_single(text):
        if not isinstance(text, str):
            raise invalid_argument("stream_* methods take one text (a str); got %s"
                                   % type(text).__name__)

    def _custom_voice_requests(self, text, speaker, language, instruct):
        self._require("custom_voice", "generate_custom_voice")
        texts = _ensure_list(text)
        n = len(texts)
        languages, speakers, instructs = _broadcast(
            [
                ("language", _per_item(language, n, "auto")),
                ("speaker", _ensure_list(speaker)),
                ("instruct", _per_item(instruct, n, "")),
            ],
            n,
        )
        return [
            _Request(t, language=l, speaker=s, instruct=i)
            for t, l, s, i in zip(texts, languages, speakers, instructs)
        ]

    def _voice_design_requests(self, text, instruct, language):
        self._require("voice_design", "generate_voice_design")
        texts = _ensure_list(text)
        n = len(texts)
        languages, instructs = _broadcast(
            [("language", _per_item(language, n, "auto")), ("instruct", _ensure_list(instruct))],
            n,
        )
        return [
            _Request(t, language=l, instruct=i) for t, l, i in zip(texts, languages, instructs)
        ]

    def _voice_clone_requests(
        self, text, language, ref_audio, ref_text, x_vector_only_mode, voice_clone_prompt
    ):
        """The requests and the voices made for them (to close after the call)."""
        self._require("base", "generate_voice_clone")
        texts = _ensure_list(text)
        n = len(texts)
        (languages,) = _broadcast([("language", _per_item(language, n, "auto"))], n)
        owned = []
        if voice_clone_prompt is None:
            if ref_audio is None:
                raise invalid_argument(
                    "Either `voice_clone_prompt` or `ref_audio` must be provided."
                )
            voices = owned = self.create_voice_clone_prompt(ref_audio, ref_text, x_vector_only_mode)
        elif isinstance(voice_clone_prompt, Voice):
            voices = [voice_clone_prompt]
        elif isinstance(voice_clone_prompt, list) and all(
            isinstance(v, Voice) for v in voice_clone_prompt
        ):
            voices = voice_clone_prompt
        else:
            raise invalid_argument(
                "voice_clone_prompt must be the list returned by create_voice_clone_prompt (or "
                "one qwen3tts.Voice); the official dict of tensors is not supported"
            )
        try:
            (voices,) = _broadcast([("prompt", voices)], n)
        except BaseException:
            for v in owned:
                v.close()
            raise
        reqs = [_Request(t, language=l, voice=v) for t, l, v in zip(texts, languages, voices)]
        return reqs, owned

    # ---- reference audio ----------------------------------------------------------------------

    def _clone(self, audio, ref_text, x_vector_only):
        options = _lib.CloneOptions()
        _lib.lib().qwen3tts_clone_options_init(ctypes.byref(options), ctypes.sizeof(options))
        options.ref_text = None if x_vector_only else _lib.encode(ref_text)
        options.x_vector_only = 1 if x_vector_only else 0
        out = ctypes.c_void_p()
        samples = reference_audio.samples_of(audio)
        if samples is not None:
            with self._handle as model:
                _lib.check(
                    _lib.lib().qwen3tts_voice_clone_samples(
                        model,
                        samples.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                        samples.size,
                        int(audio[1]),
                        ctypes.byref(options),
                        ctypes.byref(out),
                    )
                )
        else:
            with reference_audio.file_of(audio) as path, self._handle as model:
                _lib.check(
                    _lib.lib().qwen3tts_voice_clone(
                        model, _lib.encode(path), ctypes.byref(options), ctypes.byref(out)
                    )
                )
        return Voice(out.value)

    # ---- running ------------------------------------------------------------------------------

    def _options(self, req, non_streaming_mode, kwargs):
        """The C options of one request; kwargs are the generation keywords."""
        for key in kwargs:
            if key not in _GENERATION_KEYS:
                raise TypeError(
                    "unexpected keyword argument %r (qwen3tts takes: %s)"
                    % (key, ", ".join(_GENERATION_KEYS))
                )
        if not isinstance(req.text, str):
            raise TypeError(
                "text must be a str or a list of str, got %s" % type(req.text).__name__
            )
        _lib.encode(req.text)  # a NUL in it is an error now, not on the worker thread
        o = _lib.Options.from_buffer_copy(self._defaults)
        o.language = _lib.encode(req.language or "auto")
        o.speaker = _lib.encode(req.speaker) if req.speaker else None
        o.instruct = _lib.encode(req.instruct) if req.instruct else None
        if non_streaming_mode is not None:
            o.text_layout = b"non-streaming" if non_streaming_mode else b"streaming"
        k = {key: v for key, v in kwargs.items() if v is not None}
        if "do_sample" in k:
            o.talker.do_sample = 1 if k["do_sample"] else 0
        if "subtalker_dosample" in k:
            o.predictor.do_sample = 1 if k["subtalker_dosample"] else 0
        for ours, theirs in (("talker", ""), ("predictor", "subtalker_")):
            s = getattr(o, ours)
            if theirs + "top_k" in k:
                s.top_k = int(k[theirs + "top_k"])
            if theirs + "top_p" in k:
                s.top_p = float(k[theirs + "top_p"])
            if theirs + "temperature" in k:
                s.temperature = float(k[theirs + "temperature"])
        if "repetition_penalty" in k:
            o.talker.repetition_penalty = float(k["repetition_penalty"])
        if "max_new_tokens" in k:
            # The last new token is the end of speech: at most max_new_tokens - 1 frames.
            if int(k["max_new_tokens"]) < 2:
                raise invalid_argument(
                    "max_new_tokens must be at least 2 (one frame), got %r" % k["max_new_tokens"]
                )
            o.max_frames = int(k["max_new_tokens"]) - 1
        if "seed" in k:
            seed = int(k["seed"])
            if not 0 <= seed < 2**64:
                raise invalid_argument("seed must be in [0, 2**64), got %d" % seed)
            o.has_seed, o.seed = 1, seed
        if "codec_decode" in k:
            o.codec_decode = _lib.encode(k["codec_decode"])
        if "segment_chars" in k:
            o.segment_chars = int(k["segment_chars"])
        if "codec_overlap" in k:
            o.codec_overlap = _lib.encode(k["codec_overlap"])
        return o

    def _generate(self, reqs, non_streaming_mode, kwargs):
        """Each text through an AudioStream: the C call runs on its worker thread while this
        thread waits on the queue, where Ctrl-C's KeyboardInterrupt arrives at once and the
        stream's close() stops the generation at the next chunk (a Python callback on this
        thread could not catch it reliably: it may come at the callback's first instruction)."""
        options = [self._options(r, non_streaming_mode, kwargs) for r in reqs]
        wavs = []
        for req, o in zip(reqs, options):
            with self._audio_stream(req, o, []) as stream:
                chunks = list(stream)
            wavs.append(np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32))
        return wavs, self.sample_rate

    def _stream(self, req, non_streaming_mode, kwargs, owned):
        try:
            o = self._options(req, non_streaming_mode, kwargs)
        except BaseException:
            for v in owned:
                v.close()
            raise
        return self._audio_stream(req, o, owned)

    def _audio_stream(self, req, o, owned):
        """The AudioStream of one request; owned voices are closed when its call ends."""
        synths = self._synths

        def run(on_chunk):
            @_lib.AUDIO_CALLBACK
            def on_audio(ptr, n, _user):
                return on_chunk(np.ctypeslib.as_array(ptr, shape=(n,))) if n else 0

            report = _lib.Report(struct_size=ctypes.sizeof(_lib.Report))
            try:
                with synths.get() as synth, _voice_of(req) as voice:
                    o.voice = voice
                    _lib.check(
                        _lib.lib().qwen3tts_speak_stream(
                            synth, _lib.encode(req.text), ctypes.byref(o), on_audio, None,
                            ctypes.byref(report),
                        )
                    )
            finally:
                for v in owned:
                    v.close()
            return {name: getattr(report, name) for name, _ in _lib.Report._fields_[1:]}

        return AudioStream(run, self.sample_rate)

    def __repr__(self):
        return "<qwen3tts.Qwen3TTSModel %s %s (%s)>" % (
            self.info.tts_model_size,
            self.info.tts_model_type,
            self.info.dir,
        )


@contextlib.contextmanager
def _voice_of(req):
    """The C pointer of the request's voice (NULL without one), held for the call."""
    if req.voice is None:
        yield None
    else:
        with req.voice._handle as ptr:
            yield ptr


def _configured_max_new_tokens(model_dir):
    """max_new_tokens of the checkpoint's generation_config.json (the C API leaves the frame
    limit at 0, "the model's"), None when it has none."""
    try:
        with open(os.path.join(model_dir, "generation_config.json"), encoding="utf-8") as f:
            value = json.load(f).get("max_new_tokens")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None


# The short name.
Model = Qwen3TTSModel
