#include "core/npy.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace qwen3tts {

namespace {

std::string header_value(const std::string& header, const std::string& key,
                         const std::string& path) {
    const auto at = header.find("'" + key + "'");
    if (at == std::string::npos)
        throw Error(ErrorCode::format, path + ": npy header has no '" + key + "' field");
    auto colon = header.find(':', at);
    return header.substr(colon + 1);
}

size_t descr_size(const std::string& descr, const std::string& path) {
    if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|'))
        throw Error(ErrorCode::format, path + ": unsupported npy dtype '" + descr +
                                           "' (only little-endian arrays are read)");
    return std::stoul(descr.substr(2));
}

void write_npy(const std::string& path, const char* descr, const void* data, size_t elem_size,
               const std::vector<int64_t>& shape) {
    std::ostringstream dict;
    dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
    int64_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        dict << shape[i] << (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
        n *= shape[i];
    }
    dict << "), }";
    std::string header = dict.str();
    // Pad so that magic(6) + version(2) + len(2) + header is a multiple of 64, ending in '\n'.
    const size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header.push_back('\n');

    AtomicFile out(path);
    std::string prefix("\x93NUMPY\x01\x00", 8);
    const uint16_t len = uint16_t(header.size());
    prefix.push_back(char(len & 0xff));
    prefix.push_back(char(len >> 8));
    out.write(prefix.data(), prefix.size());
    out.write(header.data(), header.size());
    out.write(data, size_t(n) * elem_size);
    out.commit();
}

// Reorders column-major (Fortran) element data into row-major order in place.
void to_c_order(NpyArray& a) {
    const size_t elem = a.bytes.size() / size_t(std::max<int64_t>(a.numel(), 1));
    const size_t ndim = a.shape.size();
    std::vector<uint8_t> out(a.bytes.size());
    std::vector<int64_t> index(ndim, 0);
    for (int64_t flat = 0; flat < a.numel(); ++flat) {
        // `flat` walks C order; find the same element's column-major offset.
        int64_t f_offset = 0, stride = 1;
        for (size_t d = 0; d < ndim; ++d) {
            f_offset += index[d] * stride;
            stride *= a.shape[d];
        }
        std::memcpy(out.data() + size_t(flat) * elem, a.bytes.data() + size_t(f_offset) * elem, elem);
        for (size_t d = ndim; d-- > 0;) {
            if (++index[d] < a.shape[d]) break;
            index[d] = 0;
        }
    }
    a.bytes.swap(out);
}

}  // namespace

int64_t NpyArray::numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

std::vector<float> NpyArray::to_f32() const {
    const int64_t n = numel();
    std::vector<float> out(size_t(n), 0.0f);
    for (int64_t i = 0; i < n; ++i) {
        const uint8_t* p = bytes.data();
        if (descr == "<f4") out[i] = reinterpret_cast<const float*>(p)[i];
        else if (descr == "<f8") out[i] = float(reinterpret_cast<const double*>(p)[i]);
        else if (descr == "<i8") out[i] = float(reinterpret_cast<const int64_t*>(p)[i]);
        else if (descr == "<i4") out[i] = float(reinterpret_cast<const int32_t*>(p)[i]);
        else throw Error(ErrorCode::format, "npy dtype '" + descr + "' cannot be read as float");
    }
    return out;
}

std::vector<int64_t> NpyArray::to_i64() const {
    const int64_t n = numel();
    std::vector<int64_t> out(size_t(n), 0);
    for (int64_t i = 0; i < n; ++i) {
        const uint8_t* p = bytes.data();
        if (descr == "<i8") out[i] = reinterpret_cast<const int64_t*>(p)[i];
        else if (descr == "<i4") out[i] = reinterpret_cast<const int32_t*>(p)[i];
        else throw Error(ErrorCode::format, "npy dtype '" + descr + "' is not an integer type");
    }
    return out;
}

NpyArray read_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, path + ": cannot open for reading");
    char magic[8];
    if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw Error(ErrorCode::format, path + ": not a .npy file (bad magic)");
    uint32_t header_len = 0;
    if (magic[6] == 1) {
        unsigned char l[2];
        in.read(reinterpret_cast<char*>(l), 2);
        header_len = l[0] | (l[1] << 8);
    } else {
        unsigned char l[4];
        in.read(reinterpret_cast<char*>(l), 4);
        header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (uint32_t(l[3]) << 24);
    }
    std::string header(header_len, '\0');
    if (!in.read(header.data(), header_len))
        throw Error(ErrorCode::format, path + ": truncated npy header");

    NpyArray a;
    std::string d = header_value(header, "descr", path);
    const auto q1 = d.find('\'');
    const auto q2 = d.find('\'', q1 + 1);
    a.descr = d.substr(q1 + 1, q2 - q1 - 1);
    const bool fortran = header_value(header, "fortran_order", path).find("True") < 8;
    std::string s = header_value(header, "shape", path);
    s = s.substr(s.find('(') + 1, s.find(')') - s.find('(') - 1);
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (item.find_first_not_of(' ') != std::string::npos) a.shape.push_back(std::stoll(item));

    const size_t nbytes = size_t(a.numel()) * descr_size(a.descr, path);
    a.bytes.resize(nbytes);
    if (!in.read(reinterpret_cast<char*>(a.bytes.data()), std::streamsize(nbytes)))
        throw Error(ErrorCode::format, path + ": truncated npy data (expected " +
                                           std::to_string(nbytes) + " bytes)");
    if (fortran && a.shape.size() > 1) to_c_order(a);
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
