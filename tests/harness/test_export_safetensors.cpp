// The export backend (harness/export/export_safetensors.cpp): files read back with an independent
// safetensors reader written here, tensor names / dtypes / shapes / bytes checked against
// the Problem, atomicity on failure.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/export/export_safetensors.h"
#include "harness/problem/fp8_math_error.h"
#include "harness/problem/problem.h"
#include "verifybench/reference.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

vb::CaseSpec small_case() {
  vb::CaseSpec s;
  s.name = "unit/export,page=16";
  s.scenario = "unit/export";
  s.source = "scenarios/unit.yaml:12";
  s.heads = 2;
  s.sm_scale = 0.1352;
  s.seed = 5;
  s.batch.dist = vb::PrefixDist::kList;
  s.batch.prefix_lens = {0, 5, 20};
  s.tree.kind = vb::TreeKind::kKAry;
  s.tree.branching = 2;
  s.tree.depth = 1;  // T = 3
  s.pages.size = 16;
  s.pages.placement = vb::PagePlacement::kShuffled;
  s.pages.seed = 9;
  return s;
}

// A fresh directory under the system temp dir, removed on scope exit.
using vb::test::TempDir;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::size_t dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, std::size_t> sizes = {
      {"BF16", 2}, {"F32", 4}, {"I32", 4}, {"I64", 8}, {"U8", 1}, {"BOOL", 1}, {"F8_E4M3", 1}};
  const auto it = sizes.find(dtype);
  REQUIRE(it != sizes.end());
  return it->second;
}

// Independent safetensors reader: u64 LE header length, JSON header, data section.
struct StFile {
  std::string raw;
  std::uint64_t header_len = 0;
  std::string header_text;
  json header;
  std::size_t data_start = 0;

  explicit StFile(const fs::path& p) : raw(read_all(p)) {
    REQUIRE(raw.size() >= 8);
    for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(raw[i]);
    REQUIRE(8 + header_len <= raw.size());
    header_text = raw.substr(8, header_len);
    header = json::parse(header_text);  // trailing padding spaces are JSON whitespace
    data_start = 8 + header_len;
  }
  std::vector<std::string> tensor_names() const {
    std::vector<std::string> names;
    for (auto it = header.begin(); it != header.end(); ++it) {
      if (it.key() != "__metadata__") names.push_back(it.key());
    }
    return names;
  }
  bool has(const std::string& name) const { return header.contains(name); }
  std::string dtype(const std::string& name) const { return header.at(name).at("dtype"); }
  std::vector<std::int64_t> shape(const std::string& name) const {
    return header.at(name).at("shape").get<std::vector<std::int64_t>>();
  }
  std::string bytes(const std::string& name) const {
    const auto off = header.at(name).at("data_offsets").get<std::vector<std::uint64_t>>();
    return raw.substr(data_start + off[0], off[1] - off[0]);
  }
  template <typename T>
  std::vector<T> values(const std::string& name) const {
    const std::string b = bytes(name);
    REQUIRE(b.size() % sizeof(T) == 0);
    std::vector<T> v(b.size() / sizeof(T));
    if (!b.empty()) std::memcpy(v.data(), b.data(), b.size());
    return v;
  }
  std::string metadata(const std::string& key) const { return header.at("__metadata__").at(key); }
};

template <typename T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// Structural validity: padding, contiguous in-file offsets, sizes matching shape x dtype.
void require_well_formed(const StFile& f) {
  REQUIRE(f.header_len % 8 == 0);
  REQUIRE(f.header_text.front() == '{');
  const std::size_t close = f.header_text.find_last_of('}');
  REQUIRE(std::all_of(f.header_text.begin() + close + 1, f.header_text.end(), [](char c) { return c == ' '; }));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const std::string& name : f.tensor_names()) {
    INFO("tensor " << name);
    const auto off = f.header.at(name).at("data_offsets").get<std::vector<std::uint64_t>>();
    REQUIRE(off.size() == 2);
    REQUIRE(off[0] <= off[1]);
    std::uint64_t elements = 1;
    for (const std::int64_t d : f.shape(name)) elements *= static_cast<std::uint64_t>(d);
    REQUIRE(off[1] - off[0] == elements * dtype_bytes(f.dtype(name)));
    REQUIRE(off[0] % dtype_bytes(f.dtype(name)) == 0);  // naturally aligned
    spans.emplace_back(off[0], off[1]);
  }
  std::sort(spans.begin(), spans.end());
  std::uint64_t at = 0;
  for (const auto& [begin, end] : spans) {
    REQUIRE(begin == at);
    at = end;
  }
  REQUIRE(f.data_start + at == f.raw.size());
}

std::vector<std::string> dir_entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

vb::ReferenceOutput full_reference(const vb::Problem& pr) {
  return vb::reference_verify(vb::host_params(pr, vb::PageTableKind::kTokenIndices, nullptr, nullptr));
}

// A fake GPU run: the reference rounded to bf16 (so the float -> bf16 export is exact).
vb::GpuRunOutput fake_run(const vb::ReferenceOutput& ref) {
  vb::GpuRunOutput run;
  run.ok = true;
  for (const double v : ref.o) run.o.push_back(vb::bf16_to_float(vb::float_to_bf16(static_cast<float>(v))));
  for (const double v : ref.lse) run.lse.push_back(static_cast<float>(v) + 1.0f);
  return run;
}

}  // namespace

TEST_CASE("safetensors writer: header padded, offsets contiguous, bad tensors refused", "[export]") {
  TempDir tmp;
  vb::SafetensorsWriter w;
  const std::vector<std::uint8_t> mask = {1, 0, 1};
  const std::vector<std::int64_t> idx = {7, 8};
  const std::vector<vb::bf16_bits> empty;
  w.add("mask", vb::StDtype::kBool, {3}, mask);
  w.add("idx", vb::StDtype::kI64, {2}, idx);
  w.add("none", vb::StDtype::kBF16, {0, 576}, empty);
  w.set_metadata("case", "x");
  REQUIRE_THROWS_AS(w.add("idx", vb::StDtype::kI64, {2}, idx), vb::ExportError);
  REQUIRE_THROWS_AS(w.add("bad", vb::StDtype::kI64, {3}, idx), vb::ExportError);
  REQUIRE_THROWS_AS(w.add("__metadata__", vb::StDtype::kI64, {2}, idx), vb::ExportError);
  REQUIRE(w.header().size() % 8 == 0);

  const fs::path file = tmp.path / "t.safetensors";
  w.write(file.string());
  REQUIRE(dir_entries(tmp.path) == std::vector<std::string>{"t.safetensors"});
  REQUIRE(fs::file_size(file) == w.file_bytes());
  const StFile f(file);
  require_well_formed(f);
  REQUIRE(f.dtype("mask") == "BOOL");
  REQUIRE(f.values<std::int64_t>("idx") == idx);
  REQUIRE(f.values<std::uint8_t>("mask") == mask);
  REQUIRE(f.shape("none") == std::vector<std::int64_t>{0, 576});
  REQUIRE(f.metadata("case") == "x");
  // Widest element first: the I64 tensor starts the data section.
  REQUIRE(f.header.at("idx").at("data_offsets")[0] == 0);
}

TEST_CASE("sglang_inputs_host gathers the tree rows and cuts the page table to the prefix", "[export]") {
  const vb::Problem pr = vb::materialize(small_case());
  const vb::SglangInputsHost sg = vb::sglang_inputs_host(pr);
  const vb::VerifyParams bt = vb::host_params(pr, vb::PageTableKind::kBlockTable, nullptr, nullptr);
  const int T = pr.tree_size;
  REQUIRE(sg.qo_indptr == std::vector<std::int32_t>{0, T, 2 * T, 3 * T});
  REQUIRE(sg.kv_indptr == std::vector<std::int32_t>{0, 0, 5, 25});
  REQUIRE(sg.kv_indices.size() == 25u);
  std::size_t k = 0;
  for (int b = 0; b < pr.batch; ++b) {
    for (int t = 0; t < pr.prefix_len[b]; ++t) REQUIRE(sg.kv_indices[k++] == bt.pool_row(b, t));
    for (int i = 0; i < T; ++i) {
      const vb::bf16_bits* pool = pr.kv_pool.data() + bt.pool_row(b, pr.prefix_len[b] + i) * vb::mla::kHeadDimQK;
      const std::size_t row = static_cast<std::size_t>(b) * T + i;
      REQUIRE(std::equal(pool, pool + vb::mla::kHeadDimQK, sg.k_extend.begin() + row * vb::mla::kHeadDimQK));
      REQUIRE(std::equal(pool, pool + vb::mla::kHeadDimV, sg.v_extend.begin() + row * vb::mla::kHeadDimV));
    }
  }
}

TEST_CASE("export_case writes SGLang's tensors, the reference and case.json", "[export]") {
  TempDir tmp;
  const vb::Problem pr = vb::materialize(small_case());
  const vb::ReferenceOutput ref = full_reference(pr);
  std::vector<std::pair<std::string, vb::GpuRunOutput>> gpu;
  gpu.emplace_back("naive", fake_run(ref));
  vb::GpuRunOutput failed;
  failed.error = "flash_verify_launch failed: too many resources";
  gpu.emplace_back("production", failed);

  const fs::path dir = tmp.path / "nested" / "case1";
  vb::ExportOptions options;
  options.command = "verifybench export scenarios/unit.yaml --case 'unit/export,page=16'";
  const vb::ExportResult res = vb::export_case(pr, ref, gpu, dir.string(), options);
  REQUIRE(dir_entries(dir) == std::vector<std::string>{"case.json", "inputs.safetensors", "outputs.safetensors"});
  REQUIRE(res.files.size() == 3);
  REQUIRE(res.v_buffer_written);
  REQUIRE(res.gpu_outputs_written == std::vector<std::string>{"naive"});
  REQUIRE(res.warnings.size() == 1);
  REQUIRE_THAT(res.warnings[0], Catch::Contains("production") && Catch::Contains("too many resources"));

  const std::int64_t B = pr.batch, T = pr.tree_size, H = pr.num_heads, BT = B * T;
  const std::int64_t pool_rows = pr.pages.pool_rows();
  const std::int64_t prefix_total = 25;

  // ---- inputs
  const StFile in(dir / "inputs.safetensors");
  require_well_formed(in);
  struct Expect {
    const char* name;
    const char* dtype;
    std::vector<std::int64_t> shape;
  };
  const std::vector<Expect> expected_inputs = {
      {"q_extend", "BF16", {BT, H, 576}},
      {"k_extend", "BF16", {BT, 1, 576}},
      {"v_extend", "BF16", {BT, 1, 512}},
      {"k_buffer", "BF16", {pool_rows, 1, 576}},
      {"v_buffer", "BF16", {pool_rows, 1, 512}},
      {"qo_indptr", "I32", {B + 1}},
      {"kv_indptr", "I32", {B + 1}},
      {"kv_indices", "I64", {prefix_total}},
      {"custom_mask", "U8", {static_cast<std::int64_t>(pr.sglang_custom_mask.size())}},
      {"mask_indptr", "I64", {B + 1}},
      {"prefix_len", "I32", {B}},
      {"tree_parents", "I32", {B, T}},
      {"block_table", "I32", {B, pr.pages.max_pages}},
  };
  REQUIRE(in.tensor_names().size() == expected_inputs.size());
  for (const Expect& e : expected_inputs) {
    INFO("input " << e.name);
    REQUIRE(in.has(e.name));
    REQUIRE(in.dtype(e.name) == e.dtype);
    REQUIRE(in.shape(e.name) == e.shape);
  }
  REQUIRE(in.bytes("q_extend") == bytes_of(pr.q));
  REQUIRE(in.bytes("k_buffer") == bytes_of(pr.kv_pool));
  REQUIRE(in.bytes("custom_mask") == bytes_of(pr.sglang_custom_mask));
  REQUIRE(in.bytes("mask_indptr") == bytes_of(pr.sglang_mask_indptr));
  REQUIRE(in.bytes("block_table") == bytes_of(pr.pages.block_table));
  REQUIRE(in.values<std::int32_t>("prefix_len") == pr.prefix_len);
  REQUIRE(in.values<std::int32_t>("qo_indptr") == std::vector<std::int32_t>{0, 3, 6, 9});
  REQUIRE(in.values<std::int32_t>("kv_indptr") == std::vector<std::int32_t>{0, 0, 5, 25});
  // Prefix-only indices, from the page layout's token form directly.
  std::vector<std::int64_t> prefix_indices;
  for (int b = 0; b < pr.batch; ++b) {
    for (int t = 0; t < pr.prefix_len[b]; ++t) {
      prefix_indices.push_back(pr.pages.kv_indices[pr.pages.kv_indptr[b] + t]);
    }
  }
  REQUIRE(in.values<std::int64_t>("kv_indices") == prefix_indices);
  std::vector<std::int32_t> parents;
  for (const vb::Tree& t : pr.trees) parents.insert(parents.end(), t.parents.begin(), t.parents.end());
  REQUIRE(in.values<std::int32_t>("tree_parents") == parents);
  const auto v_buffer = in.values<vb::bf16_bits>("v_buffer");
  const auto k_extend = in.values<vb::bf16_bits>("k_extend");
  for (std::int64_t r = 0; r < pool_rows; ++r) {
    const vb::bf16_bits* src = pr.kv_pool.data() + r * 576;
    REQUIRE(std::memcmp(src, v_buffer.data() + r * 512, 512 * sizeof(vb::bf16_bits)) == 0);
  }
  const vb::VerifyParams bt = vb::host_params(pr, vb::PageTableKind::kBlockTable, nullptr, nullptr);
  for (int b = 0; b < pr.batch; ++b) {
    for (int i = 0; i < T; ++i) {
      const vb::bf16_bits* src = pr.kv_pool.data() + bt.pool_row(b, pr.prefix_len[b] + i) * 576;
      REQUIRE(std::memcmp(src, k_extend.data() + (b * T + i) * 576, 576 * sizeof(vb::bf16_bits)) == 0);
    }
  }
  REQUIRE(in.metadata("case") == "unit/export,page=16");
  REQUIRE(std::stof(in.metadata("sm_scale")) == pr.sm_scale);

  // ---- outputs
  const StFile out(dir / "outputs.safetensors");
  require_well_formed(out);
  REQUIRE(out.tensor_names().size() == 4);
  REQUIRE(out.dtype("o_reference") == "F32");
  REQUIRE(out.shape("o_reference") == std::vector<std::int64_t>{BT, H, 512});
  REQUIRE(out.dtype("lse_reference") == "F32");
  REQUIRE(out.shape("lse_reference") == std::vector<std::int64_t>{BT, H});
  REQUIRE(out.dtype("o_naive") == "BF16");
  REQUIRE(out.shape("o_naive") == std::vector<std::int64_t>{BT, H, 512});
  REQUIRE(out.dtype("lse_naive") == "F32");
  REQUIRE_FALSE(out.has("o_production"));
  std::vector<float> o_ref(ref.o.size()), lse_ref(ref.lse.size());
  std::transform(ref.o.begin(), ref.o.end(), o_ref.begin(), [](double v) { return static_cast<float>(v); });
  std::transform(ref.lse.begin(), ref.lse.end(), lse_ref.begin(), [](double v) { return static_cast<float>(v); });
  REQUIRE(ref.rows.size() == static_cast<std::size_t>(pr.query_rows()));
  REQUIRE(out.values<float>("o_reference") == o_ref);
  REQUIRE(out.values<float>("lse_reference") == lse_ref);
  std::vector<vb::bf16_bits> o_naive;
  for (const float v : gpu[0].second.o) o_naive.push_back(vb::float_to_bf16(v));
  REQUIRE(out.values<vb::bf16_bits>("o_naive") == o_naive);
  REQUIRE(out.values<float>("lse_naive") == gpu[0].second.lse);
  REQUIRE(out.metadata("case") == "unit/export,page=16");

  // ---- case.json
  const json c = json::parse(read_all(dir / "case.json"));
  REQUIRE(c.at("case") == "unit/export,page=16");
  REQUIRE(c.at("source") == "scenarios/unit.yaml:12");
  REQUIRE(c.at("batch") == 3);
  REQUIRE(c.at("tree_size") == 3);
  REQUIRE(c.at("heads") == 2);
  REQUIRE(c.at("page_size") == 16);
  REQUIRE(c.at("placement") == std::string(vb::to_string(vb::PagePlacement::kShuffled)));
  REQUIRE(static_cast<float>(c.at("sm_scale").get<double>()) == pr.sm_scale);
  REQUIRE(c.at("reproducer") == "verifybench run scenarios/unit.yaml --case 'unit/export,page=16'");
  REQUIRE(c.at("export_command") == options.command);
  REQUIRE_THAT(c.at("notes").dump(), Catch::Contains("NaN"));
  const json& in_docs = c.at("files").at("inputs.safetensors").at("tensors");
  REQUIRE(in_docs.size() == expected_inputs.size());
  for (const json& t : in_docs) {
    INFO("documented " << t.dump());
    REQUIRE(in.dtype(t.at("name")) == t.at("dtype"));
    REQUIRE(in.shape(t.at("name")) == t.at("shape").get<std::vector<std::int64_t>>());
    REQUIRE_FALSE(t.at("meaning").get<std::string>().empty());
  }
  REQUIRE(c.at("files").at("outputs.safetensors").at("tensors").size() == 4);

  // A second export over the first replaces it whole.
  const vb::ExportResult again = vb::export_case(pr, ref, {}, dir.string());
  REQUIRE(dir_entries(dir) == std::vector<std::string>{"case.json", "inputs.safetensors", "outputs.safetensors"});
  REQUIRE(StFile(dir / "outputs.safetensors").tensor_names().size() == 2);
}

// A distribution that makes some channels larger widens O's atol there (the harness's check);
// case.json must say so, or a kernel checked against the export fails where the harness passes.
TEST_CASE("an fp8 KV case exports SGLang's fp8 pool, its scale and bf16 tree rows", "[export][fp8]") {
  TempDir tmp;
  vb::CaseSpec spec = small_case();
  spec.kv_cache.dtype = vb::KvDtype::kFp8E4m3;
  spec.kv_cache.scale = 0.37;
  const vb::Problem pr = vb::materialize(spec);
  REQUIRE(pr.kv_scale == 0.37f);
  const vb::ExportResult res = vb::export_case(pr, full_reference(pr), {}, tmp.path.string());
  REQUIRE(res.v_buffer_written);
  const std::int64_t pool_rows = pr.pages.pool_rows();

  const StFile in(tmp.path / "inputs.safetensors");
  require_well_formed(in);
  REQUIRE(in.dtype("k_buffer") == "F8_E4M3");
  REQUIRE(in.shape("k_buffer") == std::vector<std::int64_t>{pool_rows, 1, 576});
  REQUIRE(in.bytes("k_buffer") == bytes_of(pr.kv_pool_fp8));
  REQUIRE(in.dtype("v_buffer") == "F8_E4M3");
  REQUIRE(in.shape("v_buffer") == std::vector<std::int64_t>{pool_rows, 1, 512});
  const auto v_buffer = in.values<std::uint8_t>("v_buffer");
  for (std::int64_t r = 0; r < pool_rows; ++r) {
    REQUIRE(std::memcmp(pr.kv_pool_fp8.data() + r * 576, v_buffer.data() + r * 512, 512) == 0);
  }
  for (const char* name : {"k_scale", "v_scale"}) {
    INFO(name);
    REQUIRE(in.dtype(name) == "F32");
    REQUIRE(in.shape(name).empty());
    REQUIRE(in.values<float>(name) == std::vector<float>{0.37f});
  }
  REQUIRE(in.metadata("kv_dtype") == "fp8_e4m3");

  // k_extend: the pool's tree rows dequantized (e4m3 x scale, exact in double), rounded to
  // bf16 once: within half a bf16 ulp, and exact where the value fits bf16.
  REQUIRE(in.dtype("k_extend") == "BF16");
  const auto k_extend = in.values<vb::bf16_bits>("k_extend");
  const auto v_extend = in.values<vb::bf16_bits>("v_extend");
  const vb::VerifyParams bt = vb::host_params(pr, vb::PageTableKind::kBlockTable, nullptr, nullptr);
  int inexact = 0;
  for (int b = 0; b < pr.batch; ++b) {
    for (int i = 0; i < pr.tree_size; ++i) {
      const std::int64_t row = bt.pool_row(b, pr.prefix_len[b] + i);
      const std::int64_t node = std::int64_t{b} * pr.tree_size + i;
      for (int d = 0; d < 576; ++d) {
        const double exact = static_cast<double>(vb::fp8_e4m3_to_float(pr.kv_pool_fp8[row * 576 + d])) * 0.37f;
        const double got = vb::bf16_to_float(k_extend[node * 576 + d]);
        INFO("node " << node << " channel " << d << ": " << exact << " as " << got);
        REQUIRE(std::fabs(got - exact) <= std::ldexp(1.0, std::ilogb(exact) - 8));
        inexact += got != exact;
        if (d < 512) REQUIRE(v_extend[node * 512 + d] == k_extend[node * 576 + d]);
      }
    }
  }
  CHECK(inexact > 0);  // a scale of 0.37 makes most products longer than bf16: the rounding ran

  const json kv = json::parse(read_all(tmp.path / "case.json")).at("kv_cache");
  REQUIRE(kv.at("dtype") == "fp8_e4m3");
  REQUIRE(static_cast<float>(kv.at("k_scale").get<double>()) == 0.37f);
  REQUIRE(kv.at("v_scale") == kv.at("k_scale"));
  REQUIRE(kv.at("scale_setting").get<double>() == 0.37);
  const json c = json::parse(read_all(tmp.path / "case.json"));
  REQUIRE_THAT(c.at("sglang_call").get<std::string>(), Catch::Contains("k_scale, v_scale"));
  REQUIRE_THAT(c.at("notes").dump(), Catch::Contains("e4m3 values times k_scale"));

  SECTION("an amax scale is recorded as such, with the number it came to") {
    spec.kv_cache.scale_from_amax = true;
    const vb::Problem amax = vb::materialize(spec);
    vb::export_case(amax, full_reference(amax), {}, tmp.path.string());
    const json j = json::parse(read_all(tmp.path / "case.json")).at("kv_cache");
    REQUIRE(j.at("scale_setting") == "amax");
    REQUIRE(static_cast<float>(j.at("k_scale").get<double>()) == amax.kv_scale);
    REQUIRE(StFile(tmp.path / "inputs.safetensors").values<float>("k_scale") == std::vector<float>{amax.kv_scale});
  }
}

TEST_CASE("a bf16 case's case.json names its pool dtype and writes no scale", "[export][fp8]") {
  TempDir tmp;
  const vb::Problem pr = vb::materialize(small_case());
  vb::export_case(pr, full_reference(pr), {}, tmp.path.string());
  const json c = json::parse(read_all(tmp.path / "case.json"));
  REQUIRE(c.at("kv_cache") == json{{"dtype", "bf16"}});
  REQUIRE(c.at("math") == "bf16");
  const StFile in(tmp.path / "inputs.safetensors");
  REQUIRE_FALSE(in.has("k_scale"));
  REQUIRE(in.metadata("kv_dtype") == "bf16");
}

TEST_CASE("an fp8-math case's case.json says its math and holds the tolerance derived for it", "[export][fp8]") {
  TempDir tmp;
  vb::CaseSpec spec = small_case();
  spec.kv_cache.dtype = vb::KvDtype::kFp8E4m3;
  spec.kv_cache.scale = 0.37;
  spec.math = vb::MathMode::kFp8;
  const vb::Problem pr = vb::materialize(spec);
  const vb::ReferenceOutput ref = full_reference(pr);
  // The production executors ran fp8 math (their launch record says so), naive bf16 math.
  std::vector<std::pair<std::string, vb::GpuRunOutput>> gpu;
  gpu.emplace_back("naive", fake_run(ref));
  gpu.emplace_back("production", fake_run(ref));
  gpu.back().second.launch.emplace();
  gpu.back().second.launch->math = "fp8";
  vb::export_case(pr, ref, gpu, tmp.path.string());
  const json c = json::parse(read_all(tmp.path / "case.json"));
  REQUIRE(c.at("math") == "fp8");
  // The tolerance `verifybench run` checks an fp8-math launch with: the case's own widened by
  // the rounding model of this case's data (wider than the base, which fp8_math keeps).
  const vb::Fp8MathErrorModel model = vb::fp8_math_error_model(pr, ref.weight_square_sum);
  const vb::ToleranceSpec widened = vb::fp8_math_tolerance(spec.tolerance, model);
  const json tol = c.at("tolerance");
  REQUIRE(tol.at("o_atol").get<double>() == widened.o_atol);
  REQUIRE(tol.at("lse_atol").get<double>() == widened.lse_atol);
  REQUIRE(tol.at("o_rtol").get<double>() == spec.tolerance.o_rtol);
  CHECK(widened.o_atol > spec.tolerance.o_atol);
  CHECK(widened.lse_atol > spec.tolerance.lse_atol);
  const json fp8_math = c.at("fp8_math");
  REQUIRE(fp8_math.at("o_sigma").get<double>() == vb::fp8_math_o_sigma(model));
  REQUIRE(fp8_math.at("lse_sigma").get<double>() == vb::fp8_math_lse_sigma(model));
  REQUIRE(fp8_math.at("sigmas").get<double>() == vb::kFp8MathSigmas);
  REQUIRE(fp8_math.at("base_o_atol").get<double>() == spec.tolerance.o_atol);
  REQUIRE(fp8_math.at("base_lse_atol").get<double>() == spec.tolerance.lse_atol);
  REQUIRE_THAT(c.at("notes").dump(), Catch::Contains("fp8 math: the production executors"));
  REQUIRE_THAT(c.at("reproducer").get<std::string>(), Catch::EndsWith(" --math fp8"));
  std::map<std::string, std::string> meaning;
  for (const json& t : c.at("files").at("outputs.safetensors").at("tensors")) meaning[t.at("name")] = t.at("meaning");
  REQUIRE_THAT(meaning.at("o_production"), Catch::EndsWith("(bf16 as the kernel wrote it; fp8 tensor math)"));
  REQUIRE_THAT(meaning.at("o_naive"), Catch::EndsWith("(bf16 as the kernel wrote it)"));

  SECTION("the same case with bf16 math: its own tolerance, no model") {
    spec.math = vb::MathMode::kBf16;
    const vb::Problem bf16_math = vb::materialize(spec);
    vb::export_case(bf16_math, full_reference(bf16_math), {}, tmp.path.string());
    const json j = json::parse(read_all(tmp.path / "case.json"));
    REQUIRE(j.at("math") == "bf16");
    REQUIRE(j.at("tolerance").at("o_atol").get<double>() == spec.tolerance.o_atol);
    REQUIRE(j.at("tolerance").at("lse_atol").get<double>() == spec.tolerance.lse_atol);
    REQUIRE_FALSE(j.contains("fp8_math"));
  }
}

TEST_CASE("export_case writes O's widened channels with the tolerance", "[export]") {
  TempDir tmp;
  vb::CaseSpec spec = small_case();
  spec.tolerance.o_wide_channels = {3, 200, 511};
  spec.tolerance.o_wide_channel_scale = 100.0;
  const vb::Problem pr = vb::materialize(spec);
  vb::export_case(pr, full_reference(pr), {}, tmp.path.string());
  const json tol = json::parse(read_all(tmp.path / "case.json")).at("tolerance");
  REQUIRE(tol.at("o_atol").get<double>() == spec.tolerance.o_atol);
  REQUIRE(tol.at("o_wide_channels").get<std::vector<int>>() == std::vector<int>{3, 200, 511});
  REQUIRE(tol.at("o_wide_channel_scale").get<double>() == 100.0);
}

TEST_CASE("export_case omits v_buffer above the size limit and says so", "[export]") {
  TempDir tmp;
  const vb::Problem pr = vb::materialize(small_case());
  vb::ExportOptions options;
  options.v_buffer_limit_bytes = 1;
  const vb::ExportResult res = vb::export_case(pr, full_reference(pr), {}, tmp.path.string(), options);
  REQUIRE_FALSE(res.v_buffer_written);
  REQUIRE(res.warnings.size() == 1);
  const StFile in(tmp.path / "inputs.safetensors");
  require_well_formed(in);
  REQUIRE_FALSE(in.has("v_buffer"));
  REQUIRE(in.has("k_buffer"));
  REQUIRE_THAT(in.metadata("v_buffer"), Catch::StartsWith("omitted") && Catch::Contains("k_buffer[..., :512]"));
  const json c = json::parse(read_all(tmp.path / "case.json"));
  REQUIRE_THAT(c.at("notes").dump(), Catch::Contains("omitted"));
}

TEST_CASE("export_case refuses a sampled reference before writing anything", "[export]") {
  TempDir tmp;
  const vb::Problem pr = vb::materialize(small_case());
  const vb::VerifyParams host = vb::host_params(pr, vb::PageTableKind::kTokenIndices, nullptr, nullptr);
  const vb::ReferenceOutput sampled = vb::reference_verify_rows(host, vb::sample_query_rows(host, 4, 1));
  const fs::path dir = tmp.path / "never";
  REQUIRE_THROWS_WITH(vb::export_case(pr, sampled, {}, dir.string()),
                      Catch::Contains("all B*T*H = 18 query rows") && Catch::Contains("reference_verify()"));
  REQUIRE_FALSE(fs::exists(dir));
}

TEST_CASE("export_case into an unwritable place fails clearly and leaves no partial files", "[export]") {
  TempDir tmp;
  const vb::Problem pr = vb::materialize(small_case());
  const vb::ReferenceOutput ref = full_reference(pr);

  SECTION("the directory cannot be created (a file is in the way)") {
    std::ofstream(tmp.path / "plain_file") << "x";
    const fs::path dir = tmp.path / "plain_file" / "case";
    REQUIRE_THROWS_WITH(vb::export_case(pr, ref, {}, dir.string()),
                        Catch::Contains("cannot create export directory") && Catch::Contains("plain_file"));
    REQUIRE(dir_entries(tmp.path) == std::vector<std::string>{"plain_file"});
  }

  SECTION("an export file is a directory: refused before anything is written") {
    const fs::path dir = tmp.path / "case";
    fs::create_directories(dir / "outputs.safetensors");
    REQUIRE_THROWS_WITH(vb::export_case(pr, ref, {}, dir.string()),
                        Catch::Contains("outputs.safetensors: a directory"));
    REQUIRE(dir_entries(dir) == std::vector<std::string>{"outputs.safetensors"});
  }

  SECTION("a read-only directory (skipped as root, which ignores permissions)") {
    if (::geteuid() == 0) {
      WARN("not checked: running as root, permission bits do not stop writes");
      return;
    }
    const fs::path dir = tmp.path / "readonly";
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    REQUIRE_THROWS_WITH(vb::export_case(pr, ref, {}, dir.string()),
                        Catch::Contains("cannot create a temporary") && Catch::Contains("inputs.safetensors"));
    fs::permissions(dir, fs::perms::owner_all);
    REQUIRE(dir_entries(dir).empty());
  }

  SECTION("an inconsistent problem is refused before the directory is created") {
    const fs::path dir = tmp.path / "new" / "deeper";
    vb::Problem bad = pr;
    bad.q.pop_back();  // q no longer matches its [B*T, H, 576] shape
    REQUIRE_THROWS_WITH(vb::export_case(bad, ref, {}, dir.string()), Catch::Contains("q_extend"));
    REQUIRE_FALSE(fs::exists(tmp.path / "new"));
  }
}

TEST_CASE("a failed export leaves the earlier export as it was, with no temporaries", "[export][hostile]") {
  TempDir tmp;
  const vb::Problem pr = vb::materialize(small_case());
  const vb::ReferenceOutput ref = full_reference(pr);
  const fs::path dir = tmp.path / "case";
  vb::export_case(pr, ref, {}, dir.string());
  const std::string inputs = read_all(dir / "inputs.safetensors"), outputs = read_all(dir / "outputs.safetensors");
  vb::CaseSpec other = small_case();
  other.seed = 6;  // other bytes
  const vb::Problem pr2 = vb::materialize(other);
  // case.json became a FIFO: refused before a byte is written, the other two untouched.
  fs::remove(dir / "case.json");
  REQUIRE(::mkfifo((dir / "case.json").c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(vb::export_case(pr2, full_reference(pr2), {}, dir.string()), Catch::Contains("case.json: a FIFO"));
  CHECK(read_all(dir / "inputs.safetensors") == inputs);
  CHECK(read_all(dir / "outputs.safetensors") == outputs);
  CHECK(dir_entries(dir) == std::vector<std::string>{"case.json", "inputs.safetensors", "outputs.safetensors"});
}

TEST_CASE("an export of a scenario path that is not UTF-8 writes case.json with U+FFFD", "[export][hostile]") {
  TempDir tmp;
  const vb::Problem pr = vb::materialize(small_case());
  vb::ExportOptions options;
  options.scenario_path = "scen\xff.yaml";
  options.command = "verifybench export scen\xff.yaml";
  REQUIRE_NOTHROW(vb::export_case(pr, full_reference(pr), {}, tmp.path.string(), options));
  CHECK_THAT(read_all(tmp.path / "case.json"), Catch::Contains("scen\xef\xbf\xbd.yaml"));
}

TEST_CASE("export_case_from_spec computes the full reference for a sampled case and warns", "[export]") {
  TempDir tmp;
  vb::CaseSpec spec = small_case();
  spec.check.mode = vb::CheckMode::kSampled;
  spec.check.sampled_rows = 4;
  std::vector<std::string> notes;
  vb::ExportOptions options;
  options.on_note = [&](const std::string& n) { notes.push_back(n); };
  vb::GpuInfo no_gpu;
  no_gpu.reason = "no CUDA device (test)";
  const vb::ExportResult res = vb::export_case_from_spec(spec, no_gpu, tmp.path.string(), options);
  REQUIRE(notes.size() == 2);
  REQUIRE_THAT(notes[0], Catch::Contains("sampled") && Catch::Contains("all 18 rows"));
  REQUIRE_THAT(notes[1], Catch::Contains("GPU outputs omitted"));
  REQUIRE(res.warnings == notes);
  const StFile out(tmp.path / "outputs.safetensors");
  REQUIRE(out.shape("lse_reference") == std::vector<std::int64_t>{9, 2});
  const json c = json::parse(read_all(tmp.path / "case.json"));
  REQUIRE(c.at("check_mode") == std::string(vb::to_string(vb::CheckMode::kSampled)));
  REQUIRE(c.at("warnings").size() == 2);
}
