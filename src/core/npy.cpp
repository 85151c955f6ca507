#include "core/npy.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/checked_size.hpp"
#include "core/error.hpp"

namespace qwen3tts {

namespace {

// numpy itself refuses headers over 10000 bytes unless told otherwise; a little slack here.
constexpr uint32_t kMaxHeaderLen = 1u << 16;
constexpr size_t kMaxDims = 64;  // NPY_MAXDIMS

size_t descr_size(const std::string& descr, const std::string& path) {
    static const struct {
        const char* descr;
        size_t size;
    } kKnown[] = {{"|b1", 1}, {"|u1", 1}, {"|i1", 1}, {"<u1", 1}, {"<i1", 1},
                  {"<f2", 2}, {"<i2", 2}, {"<u2", 2}, {"<f4", 4}, {"<i4", 4},
                  {"<u4", 4}, {"<f8", 8}, {"<i8", 8}, {"<u8", 8}};
    for (const auto& k : kKnown)
        if (descr == k.descr) return k.size;
    throw Error(ErrorCode::format, path + ": unsupported npy dtype '" + descr +
                                       "' (only little-endian numbers and bools are read)");
}

std::string shape_tuple(const std::vector<int64_t>& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// parsed strictly: numbers are read here, so no value can escape as a std exception.
class HeaderParser {
  public:
    HeaderParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

    void parse(NpyArray* a, bool* fortran) {
        bool has_descr = false, has_order = false, has_shape = false;
        expect('{');
        while (true) {
            skip_space();
            if (eat('}')) break;
            const std::string key = quoted();
            expect(':');
            if (key == "descr") {
                a->descr = quoted();
                has_descr = true;
            } else if (key == "fortran_order") {
                *fortran = boolean();
                has_order = true;
            } else if (key == "shape") {
                a->shape = shape();
                has_shape = true;
            } else {
                fail("has an unknown field '" + key + "'");
            }
            skip_space();
            if (eat(',')) continue;
            expect('}');
            break;
        }
        if (!has_descr) fail("has no 'descr' field");
        if (!has_order) fail("has no 'fortran_order' field");
        if (!has_shape) fail("has no 'shape' field");
    }

  private:
    [[noreturn]] void fail(const std::string& why) const {
        throw Error(ErrorCode::format, path_ + ": npy header " + why + " (at header byte " +
                                           std::to_string(pos_) + ")");
    }
    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n'))
            ++pos_;
    }
    bool eat(char c) {
        skip_space();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!eat(c)) fail(std::string("expected '") + c + "'");
    }
    std::string quoted() {
        skip_space();
        if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) fail("expected a string");
        const char q = s_[pos_++];
        const size_t end = s_.find(q, pos_);
        if (end == std::string::npos) fail("has an unterminated string");
        std::string out = s_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return out;
    }
    bool boolean() {
        skip_space();
        for (const char* word : {"True", "False"}) {
            const size_t n = std::strlen(word);
            if (s_.compare(pos_, n, word) == 0) {
                pos_ += n;
                return word[0] == 'T';
            }
        }
        fail("field 'fortran_order' is not True or False");
    }
    int64_t dimension() {
        skip_space();
        if (pos_ < s_.size() && s_[pos_] == '-') fail("field 'shape' has a negative dimension");
        if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9')
            fail("field 'shape' holds something other than a number");
        int64_t v = 0;
        while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
            if (__builtin_mul_overflow(v, int64_t(10), &v) ||
                __builtin_add_overflow(v, int64_t(s_[pos_] - '0'), &v))
                fail("field 'shape' has a dimension that does not fit in 64 bits");
            ++pos_;
        }
        return v;
    }
    std::vector<int64_t> shape() {
        std::vector<int64_t> dims;
        expect('(');
        while (!eat(')')) {
            if (dims.size() == kMaxDims)
                fail("field 'shape' has more than " + std::to_string(kMaxDims) + " dimensions");
            dims.push_back(dimension());
            if (!eat(',')) {
                expect(')');
                break;
            }
        }
        return dims;
    }

    const std::string& s_;
    const std::string& path_;
    size_t pos_ = 0;
};

void write_npy(const std::string& path, const char* descr, const void* data, size_t elem_size,
               const std::vector<int64_t>& shape) {
    const size_t nbytes = checked_nbytes(shape, elem_size, path);
    std::ostringstream dict;
    dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i)
        dict << shape[i] << (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
    dict << "), }";
    std::string header = dict.str();
    // Pad so that magic(6) + version(2) + len(2) + header is a multiple of 64, ending in '\n'.
    const size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header.push_back('\n');
    if (header.size() > 0xffff)
        throw Error(ErrorCode::invalid_argument, path + ": npy header of " +
                                                     std::to_string(shape.size()) +
                                                     " dimensions does not fit a version 1.0 file");

    AtomicFile out(path);
    std::string prefix("\x93NUMPY\x01\x00", 8);
    const uint16_t len = uint16_t(header.size());
    prefix.push_back(char(len & 0xff));
    prefix.push_back(char(len >> 8));
    out.write(prefix.data(), prefix.size());
    out.write(header.data(), header.size());
    out.write(data, nbytes);
    out.commit();
}

// Reorders column-major (Fortran) element data into row-major order in place. The shape was
// checked when read: its byte count fits and matches `bytes`.
void to_c_order(NpyArray& a, size_t elem) {
    const size_t ndim = a.shape.size();
    const size_t n = a.bytes.size() / elem;
    std::vector<uint8_t> out(a.bytes.size());
    std::vector<int64_t> index(ndim, 0);
    for (size_t flat = 0; flat < n; ++flat) {
        // `flat` walks C order; find the same element's column-major offset.
        size_t f_offset = 0, stride = 1;
        for (size_t d = 0; d < ndim; ++d) {
            f_offset += size_t(index[d]) * stride;
            stride *= size_t(a.shape[d]);
        }
        std::memcpy(out.data() + flat * elem, a.bytes.data() + f_offset * elem, elem);
        for (size_t d = ndim; d-- > 0;) {
            if (++index[d] < a.shape[d]) break;
            index[d] = 0;
        }
    }
    a.bytes.swap(out);
}

// Element i of little-endian data of type T (memcpy: `bytes` carries no alignment promise).
template <typename T>
T load(const std::vector<uint8_t>& bytes, size_t i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    return v;
}

// Checks that `bytes` holds the whole shape before elements are read out of it.
size_t checked_count(const NpyArray& a, size_t elem) {
    const size_t need = checked_nbytes(a.shape, elem, a.path.empty() ? "npy array" : a.path);
    if (a.bytes.size() < need)
        throw Error(ErrorCode::format, (a.path.empty() ? "npy array" : a.path) + " holds " +
                                           std::to_string(a.bytes.size()) +
                                           " bytes but its shape needs " + std::to_string(need));
    return need / std::max<size_t>(elem, 1);
}

// "<path>: " for messages about an array read from a file.
std::string prefix(const NpyArray& a) {
    return a.path.empty() ? "" : a.path + ": ";
}

}  // namespace

int64_t NpyArray::numel() const {
    return checked_numel(shape, path.empty() ? "npy array" : path);
}

std::vector<float> NpyArray::to_f32() const {
    if (descr != "<f4" && descr != "<f8" && descr != "<i8" && descr != "<i4")
        throw Error(ErrorCode::format,
                    prefix(*this) + "npy dtype '" + descr + "' cannot be read as float");
    const size_t n = checked_count(*this, descr == "<f8" || descr == "<i8" ? 8 : 4);
    std::vector<float> out(n, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        if (descr == "<f4")
            out[i] = load<float>(bytes, i);
        else if (descr == "<f8")
            out[i] = float(load<double>(bytes, i));
        else if (descr == "<i8")
            out[i] = float(load<int64_t>(bytes, i));
        else
            out[i] = float(load<int32_t>(bytes, i));
    }
    return out;
}

std::vector<int64_t> NpyArray::to_i64() const {
    if (descr != "<i8" && descr != "<i4")
        throw Error(ErrorCode::format,
                    prefix(*this) + "npy dtype '" + descr + "' is not an integer type");
    const size_t n = checked_count(*this, descr == "<i8" ? 8 : 4);
    std::vector<int64_t> out(n, 0);
    for (size_t i = 0; i < n; ++i)
        out[i] = descr == "<i8" ? load<int64_t>(bytes, i) : int64_t(load<int32_t>(bytes, i));
    return out;
}

NpyArray read_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, path + ": cannot open for reading");
    in.seekg(0, std::ios::end);
    const std::streamoff file_size = in.tellg();
    in.seekg(0);
    if (file_size < 0 || !in) throw Error(ErrorCode::io, path + ": cannot determine the file size");
    char magic[8];
    if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw Error(ErrorCode::format, path + ": not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(magic[6]);
    if (major < 1 || major > 3)
        throw Error(ErrorCode::format,
                    path + ": npy format version " + std::to_string(major) + " is not supported");
    // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4.
    const int len_bytes = major == 1 ? 2 : 4;
    unsigned char l[4] = {0, 0, 0, 0};
    if (!in.read(reinterpret_cast<char*>(l), len_bytes))
        throw Error(ErrorCode::format, path + ": truncated npy header");
    const uint32_t header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (uint32_t(l[3]) << 24);
    const std::streamoff data_start = 8 + len_bytes + std::streamoff(header_len);
    if (header_len > kMaxHeaderLen || data_start > file_size)
        throw Error(ErrorCode::format, path + ": npy header length " + std::to_string(header_len) +
                                           " exceeds the file (" + std::to_string(file_size) +
                                           " bytes) or the limit of " +
                                           std::to_string(kMaxHeaderLen));
    std::string header(header_len, '\0');
    if (!in.read(header.data(), header_len))
        throw Error(ErrorCode::format, path + ": truncated npy header");

    NpyArray a;
    a.path = path;
    bool fortran = false;
    HeaderParser(header, path).parse(&a, &fortran);
    const size_t elem = descr_size(a.descr, path);
    const size_t nbytes = checked_nbytes(a.shape, elem, path);
    const auto available = uint64_t(file_size - data_start);
    if (nbytes > available)
        throw Error(ErrorCode::format, path + ": truncated npy data (shape " +
                                           shape_tuple(a.shape) + " of " + a.descr + " needs " +
                                           std::to_string(nbytes) + " bytes, the file holds " +
                                           std::to_string(available) + ")");
    a.bytes.resize(nbytes);
    if (!in.read(reinterpret_cast<char*>(a.bytes.data()), std::streamsize(nbytes)))
        throw Error(ErrorCode::io, path + ": read failed in the npy data");
    if (fortran && a.shape.size() > 1 && nbytes > 0) to_c_order(a, elem);
    return a;
}

void write_npy_f32(const std::string& path, const float* data, const std::vector<int64_t>& shape) {
    write_npy(path, "<f4", data, sizeof(float), shape);
}

void write_npy_i64(const std::string& path, const int64_t* data,
                   const std::vector<int64_t>& shape) {
    write_npy(path, "<i8", data, sizeof(int64_t), shape);
}

}  // namespace qwen3tts
