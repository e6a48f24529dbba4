// `verifybench export` backend: a safetensors writer and the case export over it.
//
// Why a hand-written writer and no library: no C++ safetensors library is packaged in
// Debian (the reference implementation is Rust, bound to Python; the C++ ones are
// single-repository header drops with no distribution package), and the format is a
// length-prefixed JSON header followed by raw bytes, so the writer is ~100 lines over the
// nlohmann-json the harness already links. The tests read the files back with an
// independent reader.
#include "harness/export/export_safetensors.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/problem/fp8_math_error.h"
#include "harness/run/case_session.h"
#include "harness/run/runner.h"

namespace vb {

// safetensors stores little-endian data; every buffer here is written as it sits in memory.
static_assert(std::endian::native == std::endian::little,
              "the safetensors writer copies host memory verbatim: little-endian hosts only");

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

const char* to_string(StDtype dtype) {
  switch (dtype) {
    case StDtype::kBF16: return "BF16";
    case StDtype::kF32: return "F32";
    case StDtype::kI32: return "I32";
    case StDtype::kI64: return "I64";
    case StDtype::kU8: return "U8";
    case StDtype::kBool: return "BOOL";
    case StDtype::kF8E4M3: return "F8_E4M3";
  }
  return "unknown";
}

std::size_t element_bytes(StDtype dtype) {
  switch (dtype) {
    case StDtype::kBF16: return 2;
    case StDtype::kF32: return 4;
    case StDtype::kI32: return 4;
    case StDtype::kI64: return 8;
    case StDtype::kU8: return 1;
    case StDtype::kBool: return 1;
    case StDtype::kF8E4M3: return 1;
  }
  return 0;
}

// ---------------------------------------------------------------- SafetensorsWriter

void SafetensorsWriter::add(const std::string& name, StDtype dtype, std::vector<std::int64_t> shape,
                            const void* data, std::size_t bytes) {
  if (name.empty() || name == "__metadata__") {
    throw ExportError(fmt::format("safetensors: invalid tensor name '{}'", name));
  }
  for (const Entry& e : entries_) {
    if (e.name == name) throw ExportError(fmt::format("safetensors: tensor '{}' added twice", name));
  }
  std::uint64_t elements = 1;
  for (const std::int64_t d : shape) {
    if (d < 0) throw ExportError(fmt::format("safetensors: tensor '{}' has a negative dimension", name));
    elements *= static_cast<std::uint64_t>(d);
  }
  if (elements * element_bytes(dtype) != bytes) {
    throw ExportError(fmt::format("safetensors: tensor '{}' is {} bytes, its shape and dtype {} need {}",
                                  name, bytes, to_string(dtype), elements * element_bytes(dtype)));
  }
  if (data == nullptr && bytes != 0) {
    throw ExportError(fmt::format("safetensors: tensor '{}' has no data", name));
  }
  Entry e;
  e.name = name;
  e.dtype = dtype;
  e.shape = std::move(shape);
  e.data = data;
  e.bytes = bytes;
  entries_.push_back(std::move(e));
}

void SafetensorsWriter::add_owned(const std::string& name, StDtype dtype, std::vector<std::int64_t> shape,
                                  std::vector<std::uint8_t> bytes) {
  const std::size_t size = bytes.size();
  add(name, dtype, std::move(shape), bytes.data(), size);
  entries_.back().owned = std::move(bytes);  // the heap buffer moves with it: same address
  entries_.back().data = nullptr;
}

void SafetensorsWriter::set_metadata(const std::string& key, const std::string& value) {
  for (auto& kv : metadata_) {
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  }
  metadata_.emplace_back(key, value);
}

std::vector<const SafetensorsWriter::Entry*> SafetensorsWriter::file_order() const {
  // Widest element first: every size is a multiple of its element size, so each tensor
  // then starts at an offset aligned to its own element size (the header is padded to 8).
  std::vector<const Entry*> order;
  for (const Entry& e : entries_) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return element_bytes(a->dtype) > element_bytes(b->dtype);
  });
  return order;
}

std::string SafetensorsWriter::header() const {
  ordered_json h = ordered_json::object();
  std::uint64_t offset = 0;
  for (const Entry* e : file_order()) {
    ordered_json t = ordered_json::object();
    t["dtype"] = to_string(e->dtype);
    t["shape"] = e->shape;
    t["data_offsets"] = {offset, offset + e->bytes};
    h[e->name] = std::move(t);
    offset += e->bytes;
  }
  if (!metadata_.empty()) {
    ordered_json m = ordered_json::object();
    for (const auto& [k, v] : metadata_) m[k] = v;
    h["__metadata__"] = std::move(m);
  }
  std::string text;
  try {
    text = h.dump();
  } catch (const nlohmann::json::exception& e) {
    throw ExportError(fmt::format("safetensors: header is not valid UTF-8 JSON: {}", e.what()));
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

std::uint64_t SafetensorsWriter::file_bytes() const {
  std::uint64_t total = 8 + header().size();
  for (const Entry& e : entries_) total += e.bytes;
  return total;
}

void SafetensorsWriter::write_into(FileSet* set, std::FILE* file) const {
  const std::string head = header();
  unsigned char length[8];
  std::uint64_t n = head.size();
  for (unsigned char& byte : length) {  // little-endian u64
    byte = static_cast<unsigned char>(n & 0xffu);
    n >>= 8;
  }
  set->write(file, length, sizeof length);
  set->write(file, head.data(), head.size());
  for (const Entry* e : file_order()) set->write(file, e->bytes_ptr(), e->bytes);
}

void SafetensorsWriter::write(const std::string& path) const {
  try {
    FileSet set;
    write_into(&set, set.stage(path));
    set.commit();
  } catch (const FileWriteError& e) {
    throw ExportError(e.what());
  }
}

// ---------------------------------------------------------------- the case export

namespace {

using Shape = std::vector<std::int64_t>;

// One tensor of a file plus the sentence case.json says about it.
struct DocumentedFile {
  SafetensorsWriter writer;
  ordered_json docs = ordered_json::array();

  template <typename T>
  void add(const std::string& name, StDtype dtype, Shape shape, const std::vector<T>& values,
           const std::string& meaning) {
    document(name, dtype, shape, meaning);
    writer.add(name, dtype, std::move(shape), values);
  }
  void add_owned(const std::string& name, StDtype dtype, Shape shape, std::vector<std::uint8_t> bytes,
                 const std::string& meaning) {
    document(name, dtype, shape, meaning);
    writer.add_owned(name, dtype, std::move(shape), std::move(bytes));
  }

 private:
  void document(const std::string& name, StDtype dtype, const Shape& shape, const std::string& meaning) {
    docs.push_back({{"name", name}, {"dtype", to_string(dtype)}, {"shape", shape}, {"meaning", meaning}});
  }
};

template <typename T>
std::vector<std::uint8_t> as_bytes(const std::vector<T>& values) {
  std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// "<file>:<line>" -> "<file>"; anything else unchanged.
std::string file_of_source(const std::string& source) {
  const std::size_t colon = source.rfind(':');
  if (colon == std::string::npos || colon + 1 == source.size()) return source;
  const bool digits = std::all_of(source.begin() + static_cast<std::ptrdiff_t>(colon) + 1, source.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  return digits ? source.substr(0, colon) : source;
}

// Every (request, node, head) row exactly once, placed at its row-major position.
void full_reference_rows(const Problem& problem, const ReferenceOutput& ref, std::vector<float>* o,
                         std::vector<float>* lse) {
  const std::int64_t rows = problem.query_rows();
  const auto computed = static_cast<std::int64_t>(ref.rows.size());
  if (ref.sampled || computed != rows) {
    throw ExportError(fmt::format(
        "export needs the CPU reference over all B*T*H = {} query rows, this one has {}{}; "
        "compute it with reference_verify(), not reference_verify_rows()",
        rows, computed, ref.sampled ? " (sampled)" : ""));
  }
  if (ref.o.size() != static_cast<std::size_t>(rows) * mla::kHeadDimV || ref.lse.size() != ref.rows.size()) {
    throw ExportError(fmt::format("reference output sizes do not match its {} rows (o {}, lse {})", rows,
                                  ref.o.size(), ref.lse.size()));
  }
  o->assign(static_cast<std::size_t>(rows) * mla::kHeadDimV, 0.f);
  lse->assign(static_cast<std::size_t>(rows), 0.f);
  std::vector<bool> seen(static_cast<std::size_t>(rows), false);
  const int T = problem.tree_size, H = problem.num_heads;
  for (std::size_t k = 0; k < ref.rows.size(); ++k) {
    const QueryRow& r = ref.rows[k];
    if (r.request < 0 || r.request >= problem.batch || r.node < 0 || r.node >= T || r.head < 0 || r.head >= H) {
      throw ExportError(fmt::format("reference row ({}, {}, {}) is outside the problem", r.request, r.node, r.head));
    }
    const std::int64_t at = (static_cast<std::int64_t>(r.request) * T + r.node) * H + r.head;
    if (seen[at]) {
      throw ExportError(fmt::format("reference row ({}, {}, {}) appears twice", r.request, r.node, r.head));
    }
    seen[at] = true;
    (*lse)[at] = static_cast<float>(ref.lse[k]);
    const double* src = ref.o.data() + k * mla::kHeadDimV;
    std::transform(src, src + mla::kHeadDimV, o->begin() + at * mla::kHeadDimV,
                   [](double v) { return static_cast<float>(v); });
  }
}

std::vector<std::uint8_t> float_to_bf16_bytes(const std::vector<float>& values) {
  std::vector<bf16_bits> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), float_to_bf16);
  return as_bytes(bits);
}

// The folders an export created, removed again (deepest first, only while empty) unless
// the export was committed.
struct CreatedDirs {
  std::vector<fs::path> dirs;  // deepest last
  bool committed = false;
  ~CreatedDirs() {
    if (committed) return;
    for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
      std::error_code ec;
      fs::remove(*it, ec);  // refuses a folder that is not empty
    }
  }
};

// create_directories, remembering which levels did not exist, with a clear error.
void create_export_dir(const std::string& dir, CreatedDirs* created) {
  if (dir.empty()) throw ExportError("export directory is empty");
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::path(dir).lexically_normal(); !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec)) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) throw ExportError(fmt::format("cannot create export directory '{}': {}", dir, ec.message()));
  if (!fs::is_directory(dir, ec)) throw ExportError(fmt::format("export path '{}' is not a directory", dir));
  created->dirs.assign(missing.rbegin(), missing.rend());
}

const char* kNaNRowsNote =
    "k_buffer rows that no request may read (pool slack, unused pages) are NaN: a kernel that "
    "reads outside its page table produces NaN outputs instead of plausible numbers";

// The first 512 values of every pool row: absorbed MLA's V, the same bytes as K's latent part.
template <typename T>
std::vector<std::uint8_t> latent_part(const std::vector<T>& pool, std::int64_t pool_rows) {
  std::vector<T> v(static_cast<std::size_t>(pool_rows) * mla::kHeadDimV);
  for (std::int64_t r = 0; r < pool_rows; ++r) {
    const T* src = pool.data() + r * mla::kHeadDimQK;
    std::copy(src, src + mla::kHeadDimV, v.begin() + r * mla::kHeadDimV);
  }
  return as_bytes(v);
}

// The pool as SGLang's MLA pool holds it: bf16, or (an fp8 case) the e4m3 bytes its uint8
// storage holds and get_key_buffer() views as float8_e4m3fn, with the per-layer scale it
// passes as k_scale and v_scale (the same number: K and V are one row).
void add_pool(DocumentedFile* inputs, const Problem& problem, std::int64_t pool_rows) {
  const Shape shape{pool_rows, 1, mla::kHeadDimQK};
  if (problem.kv_dtype() == KvDtype::kBf16) {
    inputs->add("k_buffer", StDtype::kBF16, shape, problem.kv_pool,
                "the paged KV pool (c_kv 512 + k_pe 64 per row); NaN rows are rows no request may read");
    return;
  }
  inputs->add("k_buffer", StDtype::kF8E4M3, shape, problem.kv_pool_fp8,
              "the paged KV pool in fp8 e4m3 (SGLang's MLA pool: uint8 storage viewed as float8_e4m3fn), each "
              "value stored divided by k_scale: row value = e4m3 x k_scale; NaN rows (0x7f) are rows no request "
              "may read");
  for (const char* name : {"k_scale", "v_scale"}) {  // owned: the writer outlives this function
    inputs->add_owned(name, StDtype::kF32, {}, as_bytes(std::vector<float>{problem.kv_scale}),
                "the layer's KV dequantization scale (SGLang passes it as a float: layer.k_scale_float / "
                "v_scale_float; the same number for K and V, one row in MLA)");
  }
}

// The pool's bytes, and v_buffer beside it while they are below the limit.
std::string add_v_buffer(DocumentedFile* inputs, const Problem& problem, std::int64_t pool_rows,
                         const ExportOptions& options, bool* written) {
  const bool fp8 = problem.kv_dtype() == KvDtype::kFp8E4m3;
  const auto pool_bytes = static_cast<std::int64_t>(problem.executed_kv_pool_bytes());
  *written = pool_bytes < options.v_buffer_limit_bytes;
  if (!*written) {
    return fmt::format(
        "omitted: k_buffer is {} bytes (limit {}); use v_buffer = k_buffer[..., :512] (absorbed MLA, same bytes)",
        pool_bytes, options.v_buffer_limit_bytes);
  }
  inputs->add_owned("v_buffer", fp8 ? StDtype::kF8E4M3 : StDtype::kBF16, {pool_rows, 1, mla::kHeadDimV},
                    fp8 ? latent_part(problem.kv_pool_fp8, pool_rows) : latent_part(problem.kv_pool, pool_rows),
                    "k_buffer[..., :512] copied out (absorbed MLA: V is the same bytes as K's first 512)");
  return "written: v_buffer is k_buffer[..., :512] (absorbed MLA, same bytes)";
}

// case.json's kv_cache: the pool's dtype and, for fp8, the scale under SGLang's names and the
// scenario's setting it came from.
ordered_json kv_cache_json(const Problem& problem) {
  const KvCacheSpec& kv = problem.spec.kv_cache;
  ordered_json j = {{"dtype", to_string(kv.dtype)}};
  if (kv.dtype == KvDtype::kFp8E4m3) {
    j["k_scale"] = static_cast<double>(problem.kv_scale);
    j["v_scale"] = static_cast<double>(problem.kv_scale);
    j["scale_setting"] = kv.scale_from_amax ? ordered_json("amax") : ordered_json(kv.scale);
  }
  return j;
}

// case.json's tolerance: the one the production outputs meet, as `verifybench run` checks them.
// For fp8 math, the case's own tolerance widened by the rounding model (scenarios/README.md,
// "fp8 math"), with the model's standard deviations and the base atols beside it in `fp8_math`.
ordered_json tolerance_json(const ToleranceSpec& t) {
  return {{"o_atol", t.o_atol},
          {"o_rtol", t.o_rtol},
          {"lse_atol", t.lse_atol},
          {"lse_rtol", t.lse_rtol},
          {"o_wide_channels", t.o_wide_channels},
          {"o_wide_channel_scale", t.o_wide_channel_scale}};
}

void add_math_json(const Problem& problem, const ReferenceOutput& reference, ordered_json* c) {
  const CaseSpec& spec = problem.spec;
  const bool fp8_math = problem.kv_dtype() == KvDtype::kFp8E4m3 && spec.math == MathMode::kFp8;
  (*c)["math"] = to_string(fp8_math ? MathMode::kFp8 : MathMode::kBf16);
  if (!fp8_math) {
    (*c)["tolerance"] = tolerance_json(spec.tolerance);
    return;
  }
  const Fp8MathTolerance fp8 = fp8_math_tolerance_of(problem, reference.weight_square_sum, spec.tolerance);
  (*c)["tolerance"] = tolerance_json(fp8.tolerance);
  (*c)["fp8_math"] = {{"o_sigma", fp8.o_sigma},
                      {"lse_sigma", fp8.lse_sigma},
                      {"sigmas", kFp8MathSigmas},
                      {"base_o_atol", spec.tolerance.o_atol},
                      {"base_lse_atol", spec.tolerance.lse_atol}};
}

// export_case, with the warnings an earlier phase (export_case_from_spec) already gave,
// so case.json lists them too.
ExportResult export_case_impl(const Problem& problem, const ReferenceOutput& reference,
                              const std::vector<std::pair<std::string, GpuRunOutput>>& gpu_outputs,
                              const std::string& dir, const ExportOptions& options,
                              std::vector<std::string> earlier_warnings) {
  ExportResult result;
  result.dir = dir;
  result.warnings = std::move(earlier_warnings);
  auto warn = [&](std::string text) {
    if (options.on_note) options.on_note(text);
    result.warnings.push_back(std::move(text));
  };

  const int B = problem.batch, T = problem.tree_size, H = problem.num_heads;
  const std::int64_t BT = static_cast<std::int64_t>(B) * T;
  const std::int64_t rows = problem.query_rows();
  const std::int64_t pool_rows = problem.pages.pool_rows();
  const bool fp8 = problem.kv_dtype() == KvDtype::kFp8E4m3;
  const std::string sm_scale_text = fmt::format("{}", problem.sm_scale);  // shortest fp32 round trip

  // ---- validate everything before the first byte is written
  std::vector<float> o_ref, lse_ref;
  full_reference_rows(problem, reference, &o_ref, &lse_ref);
  std::set<std::string> names;
  for (const auto& [name, run] : gpu_outputs) {
    if (name.empty() || !names.insert(name).second) {
      throw ExportError(fmt::format("GPU output name '{}' is empty or repeated", name));
    }
    if (name == kReferenceExecutor) {
      throw ExportError(fmt::format("GPU output name '{}' collides with the CPU reference", name));
    }
    if (run.ok && (run.o.size() != static_cast<std::size_t>(rows) * mla::kHeadDimV ||
                   run.lse.size() != static_cast<std::size_t>(rows))) {
      throw ExportError(fmt::format("GPU output '{}' has o {} / lse {} values, the case needs {} / {}", name,
                                    run.o.size(), run.lse.size(), rows * mla::kHeadDimV, rows));
    }
  }

  // ---- inputs.safetensors: SGLang's names and dtypes (docs/background.md §2), then verifybench's own
  const SglangInputsHost sg = sglang_inputs_host(problem);
  DocumentedFile inputs;
  inputs.add("q_extend", StDtype::kBF16, {BT, H, mla::kHeadDimQK}, problem.q,
             "queries, row b*T+i = node i of request b; 576 = q_nope absorbed to 512 + q_pe 64");
  inputs.add("k_extend", StDtype::kBF16, {BT, 1, mla::kHeadDimQK}, sg.k_extend,
             fp8 ? "the tree nodes' own K rows (one latent head) in bf16 as SGLang keeps them beside an fp8 pool, "
                   "row b*T+i = node i of request b: k_buffer's rows of logical tokens P_b..P_b+T-1 dequantized "
                   "(e4m3 x k_scale) and rounded to bf16"
                 : "the tree nodes' own K rows (one latent head), row b*T+i = node i of request b; the same "
                   "bytes sit in k_buffer at the rows of logical tokens P_b..P_b+T-1");
  inputs.add("v_extend", StDtype::kBF16, {BT, 1, mla::kHeadDimV}, sg.v_extend,
             "k_extend[..., :512]: V is the latent part of the same row");
  add_pool(&inputs, problem, pool_rows);
  const std::string v_buffer_note = add_v_buffer(&inputs, problem, pool_rows, options, &result.v_buffer_written);
  if (!result.v_buffer_written) warn("v_buffer " + v_buffer_note);
  inputs.add("qo_indptr", StDtype::kI32, {B + 1}, sg.qo_indptr, "arange(0, (B+1)*T, T): query rows of request b");
  inputs.add("kv_indptr", StDtype::kI32, {B + 1}, sg.kv_indptr,
             "offsets into kv_indices, prefix only: kv_indptr[b+1]-kv_indptr[b] = P_b");
  inputs.add("kv_indices", StDtype::kI64, {static_cast<std::int64_t>(sg.kv_indices.size())}, sg.kv_indices,
             "k_buffer row of every committed prefix token, request by request (tree rows excluded)");
  inputs.add("custom_mask", StDtype::kU8, {static_cast<std::int64_t>(problem.sglang_custom_mask.size())},
             problem.sglang_custom_mask,
             "SGLang flat tree mask, 0/1 bytes: request b at mask_indptr[b], T rows of P_b+T columns, "
             "prefix columns all 1, then the tree nodes in node order (1 = itself or an ancestor); "
             "SGLang builds it as torch.bool: same bytes, .view(torch.bool)");
  inputs.add("mask_indptr", StDtype::kI64, {B + 1}, problem.sglang_mask_indptr,
             "start of request b in custom_mask: sum_{c<b} T*(P_c+T)");
  inputs.add("prefix_len", StDtype::kI32, {B}, problem.prefix_len, "committed prefix length P_b of request b");
  std::vector<std::int32_t> parents(static_cast<std::size_t>(BT));
  for (int b = 0; b < B; ++b) {
    std::copy(problem.trees[b].parents.begin(), problem.trees[b].parents.end(),
              parents.begin() + static_cast<std::ptrdiff_t>(b) * T);
  }
  inputs.add("tree_parents", StDtype::kI32, {B, T}, parents,
             "parent of each tree node, -1 for the root, parents[i] < i");
  inputs.add("block_table", StDtype::kI32, {B, problem.pages.max_pages}, problem.pages.block_table,
             "page ids: logical token t (prefix then tree) of request b is k_buffer row "
             "block_table[b][t / page_size] * page_size + t % page_size; unused entries out of range");
  inputs.writer.set_metadata("case", problem.spec.name);
  inputs.writer.set_metadata("sm_scale", sm_scale_text);
  inputs.writer.set_metadata("v_buffer", v_buffer_note);
  inputs.writer.set_metadata("kv_dtype", to_string(problem.kv_dtype()));
  inputs.writer.set_metadata("producer", "verifybench export");

  // ---- outputs.safetensors
  DocumentedFile outputs;
  outputs.add("o_reference", StDtype::kF32, {BT, H, mla::kHeadDimV}, o_ref,
              "CPU reference output (double accumulation from the bf16 inputs) rounded to fp32");
  outputs.add("lse_reference", StDtype::kF32, {BT, H}, lse_ref,
              "CPU reference log-sum-exp of the scaled scores, natural log, rounded to fp32");
  for (const auto& [name, run] : gpu_outputs) {
    if (!run.ok) {
      warn(fmt::format("GPU output '{}' omitted: the run failed ({})", name,
                       run.error.empty() ? "no error given" : run.error));
      continue;
    }
    outputs.add_owned("o_" + name, StDtype::kBF16, {BT, H, mla::kHeadDimV}, float_to_bf16_bytes(run.o),
                      fmt::format("output of the '{}' GPU executor (bf16 as the kernel wrote it{})", name,
                                  run.launch && run.launch->runs_fp8_math()
                                      ? "; fp8 tensor math"
                                      : ""));
    outputs.add("lse_" + name, StDtype::kF32, {BT, H}, run.lse,
                fmt::format("log-sum-exp of the '{}' GPU executor", name));
    result.gpu_outputs_written.push_back(name);
  }
  outputs.writer.set_metadata("case", problem.spec.name);
  outputs.writer.set_metadata("sm_scale", sm_scale_text);
  outputs.writer.set_metadata("producer", "verifybench export");

  // ---- case.json
  const CaseSpec& spec = problem.spec;
  const std::string scenario_path =
      options.scenario_path.empty() ? file_of_source(spec.source) : options.scenario_path;
  ordered_json c = ordered_json::object();
  c["format"] = "verifybench-export/1";
  c["case"] = spec.name;
  c["scenario"] = spec.scenario;
  c["source"] = spec.source;
  c["reproducer"] = reproducer_for(scenario_path, spec);
  if (!options.command.empty()) c["export_command"] = options.command;
  c["sm_scale"] = static_cast<double>(problem.sm_scale);
  c["sm_scale_text"] = sm_scale_text;
  c["batch"] = B;
  c["tree_size"] = T;
  c["heads"] = H;
  c["head_dim_qk"] = mla::kHeadDimQK;
  c["head_dim_v"] = mla::kHeadDimV;
  c["page_size"] = problem.pages.page_size;
  c["placement"] = to_string(spec.pages.placement);
  c["shared_prefix"] = {{"groups", spec.pages.shared_prefix.groups}, {"length", spec.pages.shared_prefix.length}};
  c["pool_rows"] = pool_rows;
  c["kv_cache"] = kv_cache_json(problem);
  c["prefix_len"] = problem.prefix_len;
  c["tree"] = {{"kind", to_string(spec.tree.kind)}};
  c["seed"] = spec.seed;
  c["check_mode"] = to_string(spec.check.mode);
  add_math_json(problem, reference, &c);
  c["sglang_call"] =
      "extend_attention_fwd(q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr, "
      "kv_indptr, kv_indices, custom_mask, is_causal=False, mask_indptr, max_len_extend=tree_size, "
      "k_scale, v_scale, sm_scale=sm_scale) from sglang/srt/layers/attention/triton_ops/extend_attention.py "
      "(k_scale = v_scale = 1.0 for a bf16 pool; an fp8 pool's k_buffer viewed as torch.float8_e4m3fn); "
      "o_extend is [B*T, H, 512] bf16; older SGLang versions have no is_causal, k_scale or v_scale arguments. "
      "That kernel returns no LSE.";
  c["notes"] = {
      kNaNRowsNote,
      "v_buffer " + v_buffer_note,
      "The tree nodes' own KV rows are in k_buffer too (logical tokens P_b..P_b+T-1 of block_table); "
      "SGLang reads them from k_extend / v_extend, so kv_indptr / kv_indices cover the prefix only.",
      "A node sees every prefix token and the tree nodes it is or descends from "
      "(custom_mask, equivalently tree_parents).",
      fp8 ? "fp8 KV: o_reference / lse_reference read every row, the tree rows included, as k_buffer's e4m3 "
            "values times k_scale (exact in double); k_extend holds those tree rows rounded to bf16."
          : "bf16 KV: k_buffer holds the rows as they are (kv_cache.dtype bf16, no scale).",
      "o_reference / lse_reference: o = sum_j softmax(sm_scale * q.K_j) * K_j[:512] over the visible "
      "tokens, lse = log(sum_j exp(sm_scale * q.K_j)); compare with the tolerance above: |got - ref| <= atol + "
      "rtol * |ref|, where O's atol is o_atol times o_wide_channel_scale in the o_wide_channels (the "
      "channels a distribution makes larger) and o_atol elsewhere.",
  };
  if (c["math"] == to_string(MathMode::kFp8)) {
    c["notes"].push_back(
        "fp8 math: the production executors (o_<executor> described 'fp8 tensor math') ran e4m3 tensor math; "
        "the tolerance above is the case's own widened by fp8_math.sigmas standard deviations of its rounding "
        "model (fp8_math.o_sigma, lse_sigma), as `verifybench run` checks them (scenarios/README.md, \"fp8 "
        "math\"). The other executors ran bf16 math and are checked with the base atols (fp8_math.base_*).");
  }
  c["files"] = {
      {"inputs.safetensors", {{"tensors", inputs.docs}}},
      {"outputs.safetensors", {{"tensors", outputs.docs}}},
  };
  c["warnings"] = result.warnings;
  // Names and paths are bytes: invalid UTF-8 becomes U+FFFD, as in result.json.
  const std::string case_text = c.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";

  // ---- stage all three, then rename them in: whole or nothing, an earlier export kept
  const std::vector<std::string> finals = export_file_paths(dir);
  for (const std::string& path : finals) check_destination(path, "export file");
  CreatedDirs created;
  create_export_dir(dir, &created);
  try {
    FileSet set;
    inputs.writer.write_into(&set, set.stage(finals[0]));
    outputs.writer.write_into(&set, set.stage(finals[1]));
    set.write(set.stage(finals[2]), case_text.data(), case_text.size());
    set.commit();
  } catch (const FileWriteError& e) {
    throw ExportError(e.what());
  }
  created.committed = true;
  result.bytes_written = inputs.writer.file_bytes() + outputs.writer.file_bytes() + case_text.size();
  result.files = finals;
  return result;
}

}  // namespace

std::vector<std::string> export_file_paths(const std::string& dir) {
  const fs::path base(dir);
  return {(base / "inputs.safetensors").string(), (base / "outputs.safetensors").string(),
          (base / "case.json").string()};
}

ExportResult export_case(const Problem& problem, const ReferenceOutput& reference,
                         const std::vector<std::pair<std::string, GpuRunOutput>>& gpu_outputs,
                         const std::string& dir, const ExportOptions& options) {
  return export_case_impl(problem, reference, gpu_outputs, dir, options, {});
}

ExportResult export_case_from_spec(const CaseSpec& spec, const GpuInfo& gpu, const std::string& dir,
                                   const ExportOptions& options) {
  std::vector<std::string> warnings;
  auto note = [&](std::string text, bool is_warning) {
    if (options.on_note) options.on_note(text);
    if (is_warning) warnings.push_back(std::move(text));
  };

  CaseSession session(spec);
  const Problem& problem = session.problem();
  if (spec.check.mode == CheckMode::kSampled) {
    // Upper bound of the reference's multiply-adds: every head of every node against every
    // prefix-and-tree row (the masked tree part is skipped, the prefix dominates).
    double flops = 0;
    for (int b = 0; b < problem.batch; ++b) {
      flops += 2.0 * (problem.prefix_len[b] + problem.tree_size) * problem.tree_size * problem.num_heads *
               (mla::kHeadDimQK + mla::kHeadDimV);
    }
    note(fmt::format("case '{}' checks only {} sampled rows, but an export carries the full answer: "
                     "computing the CPU reference over all {} rows (about {:.1f} GFLOP in double; "
                     "this can take a long time for long prefixes)",
                     spec.name, spec.check.sampled_rows, problem.query_rows(), flops * 1e-9),
         true);
  }
  ReferenceOptions ref_options;
  ref_options.threads = options.reference_threads;
  const ReferenceOutput& reference = session.reference(ReferenceRows::kAll, ref_options);

  std::vector<std::pair<std::string, GpuRunOutput>> gpu_outputs;
  if (gpu.available) {
    std::string upload_error;
    DeviceProblem* const device = session.device(gpu, &upload_error);
    if (device == nullptr) {
      note("GPU outputs omitted: upload failed: " + upload_error, true);
    } else {
      for (const ExecutorInfo& run : executor_registry()) {
        if (!device->executor_applies(run.kind, nullptr)) continue;
        gpu_outputs.emplace_back(run.name, device->run(run.kind, run.page_kind));
      }
    }
  } else {
    note(fmt::format("GPU outputs omitted: {}", gpu.reason.empty() ? "no CUDA device" : gpu.reason), true);
  }

  return export_case_impl(problem, reference, gpu_outputs, dir, options, std::move(warnings));
}

}  // namespace vb
