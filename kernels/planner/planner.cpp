// The production kernel's planner (verifybench/planner.h): the split schedule from a wave
// model, then every other launch decision, in one place. Host-only arithmetic.
#include "verifybench/planner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "combine/combine_config.h"
#include "mma_sync/mma_config.h"
#include "verifybench/decimal_text.h"
#include "verifybench/kernels.h"
#include "verifybench/planner_limits.h"
#include "verifybench/tile_balance.h"
#include "wgmma/wgmma_config.h"

namespace vb {
namespace {

using namespace mma_cfg;
using namespace combine_cfg;

constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }
constexpr std::int64_t ceil_div64(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

int balance_boundary_units(FlashVerifyPath path, const PlannerConfig& config) {
  return path == FlashVerifyPath::kWgmma ? config.wgmma_balance_boundary_units : config.mma_balance_boundary_units;
}

bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

// ---- PlannerConfig keys ----
struct OptionField {
  PlannerOptionInfo info;
  std::function<bool(PlannerConfig&, double)> set;  // false: value out of range
  std::function<double(const PlannerConfig&)> get;
  bool integer;
};

template <class T>
OptionField field(const char* key, const char* meaning, T PlannerConfig::*member, double min_value,
                  double max_value) {
  const bool integer = std::is_integral_v<T>;
  return {{key, meaning},
          [member, min_value, max_value, integer](PlannerConfig& c, double v) {
            if (!(v >= min_value && v <= max_value) || (integer && v != std::floor(v))) return false;
            c.*member = static_cast<T>(v);
            return true;
          },
          [member](const PlannerConfig& c) { return static_cast<double>(c.*member); },
          integer};
}

const std::vector<OptionField>& option_fields() {
  static const std::vector<OptionField> fields = {
      field("wgmma_min_rows", "wgmma for requests of at least this many query rows (H*T)",
            &PlannerConfig::wgmma_min_rows, 1, 1 << 20),
      field("wgmma_min_tiles_per_sm", "... and at least this many 64x64 tiles of work per SM",
            &PlannerConfig::wgmma_min_tiles_per_sm, 0, 1e9),
      field("wgmma_few_rows_min_page_size", "17-63 query rows take wgmma only over pages of at least this many rows",
            &PlannerConfig::wgmma_few_rows_min_page_size, 1, 1 << 20),
      field("wgmma_few_rows_min_tiles_per_sm", "... and at least this many 64x64 tiles per SM",
            &PlannerConfig::wgmma_few_rows_min_tiles_per_sm, 0, 1e9),
      field("wgmma_run_boxes_min_row_tiles",
            "token table: checked TMA run boxes on fixed-split wgmma plans of at least this many row tiles (0: never)",
            &PlannerConfig::wgmma_run_boxes_min_row_tiles, 0, 1 << 20),
      field("wgmma_page_boxes_min_row_tiles",
            "block table, pages >= 16 rows: TMA page boxes on fixed-split wgmma plans of at least this many row "
            "tiles (0: never)",
            &PlannerConfig::wgmma_page_boxes_min_row_tiles, 0, 1 << 20),
      field("split_overhead_tiles", "split model: a block's fixed cost (Q load, pipeline fill, epilogue), in tiles",
            &PlannerConfig::split_overhead_tiles, 0, 1e6),
      field("combine_tiles_per_split", "split model: the combine's cost per split, in tiles",
            &PlannerConfig::combine_tiles_per_split, 0, 1e6),
      field("min_tiles_per_split", "fewest KV tiles a split covers", &PlannerConfig::min_tiles_per_split, 1, 1 << 20),
      field("max_splits", "most splits per request (at most the combine's 128)", &PlannerConfig::max_splits, 1,
            kMaxSplits),
      field("split_divisor", "divides every planned split count (2: the nightly gate's slowed configuration)",
            &PlannerConfig::split_divisor, 1, 1 << 20),
      field("token_split", "mma.sync token split for H*T <= 16 when splits are long enough (1 on, 0 off)",
            &PlannerConfig::token_split, 0, 1),
      field("mma_balance_boundary_units", "tile-balanced mma.sync: a request boundary's cost, in tiles",
            &PlannerConfig::mma_balance_boundary_units, 0, 1 << 16),
      field("wgmma_balance_boundary_units", "tile-balanced wgmma: a request boundary's cost, in tiles",
            &PlannerConfig::wgmma_balance_boundary_units, 0, 1 << 16),
      field("mma_balance_min_gain", "tile-balanced mma.sync plans must model this much cheaper than the others",
            &PlannerConfig::mma_balance_min_gain, 0, 1e6),
      field("wgmma_balance_min_gain", "tile-balanced wgmma plans must model this much cheaper than the others",
            &PlannerConfig::wgmma_balance_min_gain, 0, 1e6),
      field("balance_max_blocks", "tile-balanced: most blocks per row tile", &PlannerConfig::balance_max_blocks, 2,
            kMaxBalancedBlocks),
      field("balance_full_wave_min_units",
            "tile-balanced: more than max_splits blocks only where each holds at least this many units",
            &PlannerConfig::balance_full_wave_min_units, 0, 1 << 20),
      field("balance_combine_slots", "tile-balanced: partial slots per row the combine's lanes hold (1-8)",
            &PlannerConfig::balance_combine_slots, 1, kCombineSlots),
      field("adapter_mask_wait_max_block_tiles",
            "SGLang adapter, mma.sync: wait for the packing kernel only before the mask up to this many tiles per block",
            &PlannerConfig::adapter_mask_wait_max_block_tiles, 0, 1 << 20),
  };
  return fields;
}

std::string format_number(double v, bool integer) {
  char buf[64];
  if (integer) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

}  // namespace

const char* to_string(FlashVerifyPath path) { return path == FlashVerifyPath::kWgmma ? "wgmma" : "mma.sync"; }

const char* to_string(MathMode math) { return math == MathMode::kFp8 ? "fp8" : "bf16"; }

const char* to_string(KernelInstance instance) {
  switch (instance) {
    case KernelInstance::kMmaPlain: return "mma.sync";
    case KernelInstance::kMmaTokenSplit: return "mma.sync/token-split";
    case KernelInstance::kMmaBalanced: return "mma.sync/balanced";
    case KernelInstance::kWgmmaGather: return "wgmma";
    case KernelInstance::kWgmmaRunBoxes: return "wgmma/run-boxes";
    case KernelInstance::kWgmmaPageBoxes: return "wgmma/page-boxes";
    case KernelInstance::kWgmmaBalanced: return "wgmma/balanced";
  }
  return "unknown";
}

const std::vector<PlannerOptionInfo>& planner_options() {
  static const std::vector<PlannerOptionInfo> infos = [] {
    std::vector<PlannerOptionInfo> out;
    for (const OptionField& f : option_fields()) out.push_back(f.info);
    return out;
  }();
  return infos;
}

bool set_planner_option(PlannerConfig* config, std::string_view key, std::string_view value, std::string* error) {
  for (const OptionField& f : option_fields()) {
    if (f.info.key != key) continue;
    // Integer keys take integer text only ("2e0" and "2." are refused, as in every other
    // integer field of a scenario file).
    std::optional<double> v = parse_decimal_number(value);
    if (f.integer) {
      const std::optional<std::int64_t> i = parse_decimal_integer(value, true);
      v = i ? std::optional<double>(static_cast<double>(*i)) : std::nullopt;
    }
    if (!v) {
      if (error) {
        *error = "planner setting '" + std::string(key) + "': '" + std::string(value) + "' is not " +
                 (f.integer ? "a plain decimal integer" : "a finite decimal number");
      }
      return false;
    }
    if (!f.set(*config, *v)) {
      if (error) {
        *error = "planner setting '" + std::string(key) + "': " + std::string(value) + " is out of range (" +
                 f.info.meaning + ")";
      }
      return false;
    }
    return true;
  }
  if (error) {
    std::string known;
    for (const OptionField& f : option_fields()) known += (known.empty() ? "" : ", ") + f.info.key;
    *error = "unknown planner setting '" + std::string(key) + "' (known: " + known + ")";
  }
  return false;
}

std::string planner_config_overrides(const PlannerConfig& config) {
  const PlannerConfig defaults;
  std::string out;
  for (const OptionField& f : option_fields()) {
    const double v = f.get(config);
    if (v == f.get(defaults)) continue;
    out += (out.empty() ? "" : " ") + f.info.key + "=" + format_number(v, f.integer);
  }
  return out;
}

int flash_verify_pipeline_variants(int* stages, int capacity) {
  int n = 0;
  for (int v : kPipelineVariants) {
    if (n < capacity) stages[n] = v;
    ++n;
  }
  return n;
}

int flash_verify_smem_bytes(int stages, KvDtype kv_dtype) {
  for (int v : kPipelineVariants) {
    if (v == stages) return smem_bytes_for_stages(stages, kv_dtype == KvDtype::kFp8E4m3);
  }
  return 0;
}

int flash_verify_stages_for_smem_optin(int optin_bytes, KvDtype kv_dtype) {
  for (int stages : kPipelineVariants) {
    if (smem_bytes_for_stages(stages, kv_dtype == KvDtype::kFp8E4m3) <= optin_bytes) return stages;
  }
  return 0;
}

int flash_verify_combine_splits(const SplitSchedule& plan) {
  return plan.tile_balanced ? plan.balanced_slots : plan.num_splits;
}

int flash_verify_combine_lanes(int combine_splits, std::int64_t rows, int num_sms, int max_threads_per_sm,
                               bool tile_balanced) {
  // At most as many lanes as splits (a power of two, 8 at most: the block's 8 row slots divide
  // by it); of those and the fewer lane counts whose loads fit the largest instance, the one
  // whose blocks take the fewest waves of resident blocks (the more lanes on a tie; tile-balanced
  // plans the fewer: their long requests' rows merge the slots past the lanes in one loop
  // whatever the lanes, and fewer lanes are fewer blocks).
  int lanes = kCombineSlots;
  while (lanes > 1 && lanes / 2 >= combine_splits) lanes /= 2;
  auto waves = [&](int l) {
    const int per_sm = std::max(
        1, combine_blocks_per_sm(combine_instance_loads(ceil_div(combine_splits, l)), max_threads_per_sm, tile_balanced));
    const std::int64_t blocks = ceil_div64(rows, kCombineSlots / l) * kCombineChunks;
    return ceil_div64(blocks, static_cast<std::int64_t>(std::max(1, num_sms)) * per_sm);
  };
  int best = lanes;
  for (int l = lanes / 2; l >= 1 && ceil_div(combine_splits, l) <= kCombineMaxPerLane; l /= 2) {
    if (waves(l) < waves(best) || (tile_balanced && waves(l) == waves(best))) best = l;
  }
  return best;
}

std::string planner_shape_error(int batch, int tree_size, int num_heads, int max_kv_len, const int* kv_lens) {
  const std::string allowed = "; allowed: at most " + std::to_string(kMaxPlannedCount) + " (2^30)";
  if (batch < 0) return "batch " + std::to_string(batch) + "; allowed: 0 or more";
  if (tree_size < 1) return "tree_size " + std::to_string(tree_size) + "; allowed: 1 or more";
  if (num_heads < 1) return "num_heads " + std::to_string(num_heads) + "; allowed: 1 or more";
  const std::int64_t rows = std::int64_t{batch} * tree_size * num_heads;
  if (rows > kMaxPlannedCount || std::int64_t{tree_size} * num_heads > kMaxPlannedCount) {
    return "batch * tree_size * num_heads = " + std::to_string(batch) + " * " + std::to_string(tree_size) + " * " +
           std::to_string(num_heads) + " query rows" + allowed;
  }
  if (max_kv_len < 0 || max_kv_len > kMaxPlannedCount) return "max_kv_len " + std::to_string(max_kv_len) + allowed;
  for (int b = 0; kv_lens != nullptr && b < batch; ++b) {
    if (kv_lens[b] < 0 || kv_lens[b] > kMaxPlannedCount) {
      return "kv_lens[" + std::to_string(b) + "] " + std::to_string(kv_lens[b]) + allowed;
    }
  }
  return "";
}

// The engine: wgmma where its tiles carry enough work per SM (compute-bound rows), or where
// few rows stream paged bytes (17-63 rows over pages of >= 16 rows).
SplitSchedule plan_split_schedule(int batch, int tree_size, int num_heads, int max_kv_len, int num_sms,
                                  int blocks_per_sm, bool wgmma_available, const int* kv_lens, int page_size,
                                  const PlannerConfig& config) {
  if (const std::string why = planner_shape_error(batch, tree_size, num_heads, max_kv_len, kv_lens); !why.empty()) {
    throw std::invalid_argument(why);
  }
  long kv_tiles = 0;  // 64-token tiles of all requests (each at most max_kv_len long)
  for (int b = 0; b < batch; ++b) {
    kv_tiles += ceil_div(std::max(1, std::min(max_kv_len, kv_lens ? kv_lens[b] : max_kv_len)),
                         wgmma_cfg::kTokensPerTile);
  }
  const int rows = tree_size * num_heads;
  const double tiles_per_sm = static_cast<double>(kv_tiles * ceil_div(rows, wgmma_cfg::kRowsPerTile)) /
                              static_cast<double>(std::max(1, num_sms));
  const bool wgmma_for_compute = rows >= config.wgmma_min_rows && tiles_per_sm >= config.wgmma_min_tiles_per_sm;
  const bool wgmma_for_paged_bytes = rows > kMmaM && rows < config.wgmma_min_rows &&
                                     page_size >= config.wgmma_few_rows_min_page_size &&
                                     tiles_per_sm >= config.wgmma_few_rows_min_tiles_per_sm;
  const bool wgmma = wgmma_available && (wgmma_for_compute || wgmma_for_paged_bytes);
  return plan_split_schedule_for_path(wgmma ? FlashVerifyPath::kWgmma : FlashVerifyPath::kMmaSync, batch, tree_size,
                                    num_heads, max_kv_len, num_sms, blocks_per_sm, kv_lens, config);
}

// Split count from a wave model: with `slots` resident blocks, B*m_tiles*s blocks run in
// ceil(B*m_tiles*s / slots) waves, each as long as one split's tiles plus a fixed cost
// (split_overhead_tiles); the combine adds combine_tiles_per_split per split. The cheapest s
// wins (the smaller on ties), so one long request still spreads over every SM and a full
// batch is not split for nothing. A block spends about the same time per tile whatever the
// load (the tile loop is a serial latency chain), so the model counts tiles, not bytes.
//
// With unequal lengths, splits of a fixed size C tiles (a request of t tiles takes ceil(t / C))
// replace the even plan when all their blocks fit one wave and the longest block is cheaper;
// the tile-balanced schedule replaces both when its model is cheaper by the path's margin.
SplitSchedule plan_split_schedule_for_path(FlashVerifyPath path, int batch, int tree_size, int num_heads,
                                           int max_kv_len, int num_sms, int blocks_per_sm, const int* kv_lens,
                                           const PlannerConfig& config) {
  if (const std::string why = planner_shape_error(batch, tree_size, num_heads, max_kv_len, kv_lens); !why.empty()) {
    throw std::invalid_argument(why);
  }
  SplitSchedule plan;
  const bool wgmma = path == FlashVerifyPath::kWgmma;
  plan.path = path;
  const int rows_per_tile = wgmma ? wgmma_cfg::kRowsPerTile : kRowsPerTile;
  const int tokens_per_tile = wgmma ? wgmma_cfg::kTokensPerTile : kTokensPerTile;
  if (wgmma) blocks_per_sm = 1;
  plan.m_tiles = ceil_div(tree_size * num_heads, rows_per_tile);
  const long base_blocks = std::max(1L, static_cast<long>(batch) * plan.m_tiles);
  const long slots = std::max(1L, static_cast<long>(num_sms) * std::max(1, blocks_per_sm));
  auto even_waves = [&](int s) { return (base_blocks * s + slots - 1) / slots; };
  const int max_tiles = ceil_div(std::max(1, max_kv_len), tokens_per_tile);
  const int max_splits = std::min(config.max_splits, kMaxSplits);
  const int split_cap = std::min(max_splits, std::max(1, max_tiles / config.min_tiles_per_split));
  double best_cost = -1;
  for (int s = 1; s <= split_cap; ++s) {
    const double cost = static_cast<double>(even_waves(s)) * (ceil_div(max_tiles, s) + config.split_overhead_tiles) +
                        (s > 1 ? s * config.combine_tiles_per_split : 0.0);
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      plan.num_splits = s;
    }
  }
  // Length-aware plan, one wave of blocks only (several waves of fixed-size splits run slower).
  // Every C is tried: the smallest whose blocks fit one wave may lie between two of the longest
  // request's even divisions.
  bool unequal = false;
  for (int b = 1; kv_lens != nullptr && b < batch; ++b) unequal = unequal || kv_lens[b] != kv_lens[0];
  for (int split_tiles = ceil_div(max_tiles, split_cap); unequal && split_tiles < max_tiles; ++split_tiles) {
    const int s = ceil_div(max_tiles, split_tiles);
    long blocks = 0;
    for (int b = 0; b < batch; ++b) {
      blocks += ceil_div(ceil_div(std::max(1, std::min(max_kv_len, kv_lens[b])), tokens_per_tile), split_tiles);
    }
    if (blocks * plan.m_tiles > slots) continue;
    const double cost = split_tiles + config.split_overhead_tiles + s * config.combine_tiles_per_split;
    if (cost < best_cost) {
      best_cost = cost;
      plan.num_splits = s;
      plan.tiles_per_split = split_tiles;
    }
  }
  // Tile-balanced plan: as many blocks per row tile as one wave holds (more than max_splits only
  // where blocks stay long), each an equal share of the batch's tiles laid end to end with the
  // path's boundary units in front of every request; each share holds >= min_tiles_per_split.
  const int boundary = balance_boundary_units(path, config);
  const double min_gain = wgmma ? config.wgmma_balance_min_gain : config.mma_balance_min_gain;
  std::int64_t best_balanced_units_total = 0;
  if (unequal) {
    auto units_of = [&](int b) {
      return tile_balance::request_units(std::max(1, std::min(max_kv_len, kv_lens[b])), tokens_per_tile, boundary);
    };
    std::int64_t total = 0;
    for (int b = 0; b < batch; ++b) total += units_of(b);
    std::int64_t wave_blocks = std::min<std::int64_t>(config.balance_max_blocks, slots / plan.m_tiles);
    if (wave_blocks > max_splits &&
        tile_balance::units_per_block(total, max_splits) < config.balance_full_wave_min_units) {
      wave_blocks = max_splits;  // short blocks: the extra boundaries cost more than the idle SMs
    }
    const int balanced_blocks = static_cast<int>(
        std::min<std::int64_t>(wave_blocks, total / (config.min_tiles_per_split + boundary)));
    const std::int64_t per_block = tile_balance::units_per_block(total, std::max(1, balanced_blocks));
    int max_slots = 1;
    std::int64_t start = 0;
    for (int b = 0; b < batch; ++b) {
      const std::int64_t units = units_of(b);
      max_slots = std::max(max_slots, tile_balance::request_slots(start, units, boundary, per_block));
      start += units;
    }
    const double cost =
        static_cast<double>(per_block) + config.split_overhead_tiles + max_slots * config.combine_tiles_per_split;
    if (balanced_blocks >= 2 && cost * min_gain < best_cost) {
      plan.tile_balanced = true;
      plan.num_splits = balanced_blocks;
      plan.tiles_per_split = 0;
      plan.balanced_slots = std::min(max_slots, config.balance_combine_slots);
      best_balanced_units_total = total;
    }
  }
  if (config.split_divisor > 1) {
    plan.num_splits = std::max(1, plan.num_splits / config.split_divisor);
    if (plan.tiles_per_split > 0) plan.tiles_per_split = ceil_div(max_tiles, plan.num_splits);
    plan.balanced_slots = std::min(plan.balanced_slots, plan.num_splits);
  }
  const int longest_split = std::max(plan.tiles_per_split, ceil_div(max_tiles, plan.num_splits));
  if (plan.tile_balanced) {
    plan.modelled_block_tiles =
        static_cast<int>(tile_balance::units_per_block(best_balanced_units_total, plan.num_splits));
  } else {
    // Many waves on a device of few SMs can pass an int: the model only compares it.
    const long waves = plan.tiles_per_split > 0 ? 1 : even_waves(plan.num_splits);
    plan.modelled_block_tiles = static_cast<int>(std::min<long>(waves * longest_split, INT32_MAX));
  }
  // The token split, where one 16-row group holds every row and the longest request's splits
  // are long enough to repay the merge (the kernel checks each block's own length again).
  plan.token_split = !wgmma && !plan.tile_balanced && config.token_split && tree_size * num_heads <= kMmaM &&
                     longest_split >= kTokenSplitMinTiles;
  return plan;
}

namespace {

// The wgmma instance: TMA boxes on fixed-split plans where the rule's thresholds say so and the
// pool is addressable by a tensor map (< 2^31 rows); the block table's page boxes need pages
// of >= 16 rows, a power of two, so that each producer warp's 16-row group lies in one page.
KernelInstance wgmma_instance_for(const SplitSchedule& s, const PlanShape& shape, const PlannerConfig& config) {
  if (s.tile_balanced) return KernelInstance::kWgmmaBalanced;
  const bool addressable = shape.pool_rows >= wgmma_cfg::kTmaBoxRows && shape.pool_rows <= INT32_MAX;
  if (!addressable) return KernelInstance::kWgmmaGather;
  if (shape.page_kind == PageTableKind::kTokenIndices) {
    const bool runs = config.wgmma_run_boxes_min_row_tiles > 0 && s.m_tiles >= config.wgmma_run_boxes_min_row_tiles;
    return runs ? KernelInstance::kWgmmaRunBoxes : KernelInstance::kWgmmaGather;
  }
  const bool pages = config.wgmma_page_boxes_min_row_tiles > 0 && shape.page_size >= wgmma_cfg::kTmaBoxRows &&
                     is_power_of_two(shape.page_size) && s.m_tiles >= config.wgmma_page_boxes_min_row_tiles;
  return pages ? KernelInstance::kWgmmaPageBoxes : KernelInstance::kWgmmaGather;
}

LaunchPlan invalid(LaunchPlan plan, std::string why) {
  plan.valid = false;
  plan.why_invalid = std::move(why);
  return plan;
}

}  // namespace

LaunchPlan complete_launch_plan(const SplitSchedule& schedule, const PlanShape& shape, const DeviceTarget& target,
                                const PlannerConfig& config) {
  LaunchPlan plan;
  plan.schedule = schedule;
  const SplitSchedule& s = plan.schedule;
  const bool wgmma = s.path == FlashVerifyPath::kWgmma;
  plan.rows_per_tile = wgmma ? wgmma_cfg::kRowsPerTile : kRowsPerTile;
  plan.tokens_per_tile = wgmma ? wgmma_cfg::kTokensPerTile : kTokensPerTile;
  plan.main_threads = wgmma ? wgmma_cfg::kThreads : kBlockThreads;
  if (wgmma) {
    if (!target.wgmma) return invalid(plan, "the wgmma path needs a compute capability 9.0 device");
    if (s.pipeline_stages != 0) return invalid(plan, "the wgmma path has one pipeline depth (ask for 0)");
    if (target.smem_optin_bytes > 0 && wgmma_cfg::kSmemBytes > target.smem_optin_bytes) {
      return invalid(plan, "the wgmma kernel's " + std::to_string(wgmma_cfg::kSmemBytes) +
                               " bytes of shared memory exceed the device's per-block limit (smem_optin_bytes " +
                               std::to_string(target.smem_optin_bytes) + ")");
    }
    plan.instance = wgmma_instance_for(s, shape, config);
    plan.pipeline_stages = wgmma_cfg::kStages;
    plan.smem_bytes = wgmma_cfg::kSmemBytes;
  } else {
    plan.instance = s.token_split     ? KernelInstance::kMmaTokenSplit
                    : s.tile_balanced ? KernelInstance::kMmaBalanced
                                      : KernelInstance::kMmaPlain;
    plan.pipeline_stages = s.pipeline_stages != 0 ? s.pipeline_stages
                                                  : flash_verify_stages_for_smem_optin(target.smem_optin_bytes, shape.kv_dtype);
    const int needed = flash_verify_smem_bytes(plan.pipeline_stages, shape.kv_dtype);
    if (needed == 0) return invalid(plan, "no built mma.sync pipeline depth fits the device's shared memory");
    if (needed > target.smem_optin_bytes && target.smem_optin_bytes > 0) {
      return invalid(plan, "the mma.sync variant's shared memory exceeds the device's per-block limit");
    }
    // The request may pass the target's own limit: an sm_120 proxy on a Hopper asks for more
    // than sm_120 allows, to hold the Hopper's SM to one block (the launch checks the device's).
    plan.smem_bytes = std::max(needed, target.mma_smem_request_bytes);
  }
  const int boundary = balance_boundary_units(s.path, config);
  plan.split_tiles_arg = s.tile_balanced ? tile_balance::balanced_split_tiles_arg(boundary) : s.tiles_per_split;
  plan.main_grid = {static_cast<unsigned>(s.m_tiles), static_cast<unsigned>(s.num_splits),
                    static_cast<unsigned>(s.tile_balanced ? 1 : std::max(1, shape.batch))};
  if (s.num_splits > 1) {
    const int forced = s.combine_split_lanes;
    if (forced != 0 && forced != 1 && forced != 2 && forced != 4 && forced != 8) {
      return invalid(plan, "combine lanes must be 1, 2, 4 or 8");
    }
    const std::int64_t rows = static_cast<std::int64_t>(shape.batch) * shape.tree_size * shape.num_heads;
    plan.combine_splits = flash_verify_combine_splits(s);
    plan.combine_lanes = s.combine_split_lanes != 0
                             ? s.combine_split_lanes
                             : flash_verify_combine_lanes(plan.combine_splits, rows, target.num_sms,
                                                          target.max_threads_per_sm, s.tile_balanced);
    plan.combine_loads_per_lane = combine_instance_loads(ceil_div(plan.combine_splits, plan.combine_lanes));
    plan.combine_grid = {static_cast<unsigned>(ceil_div64(rows, kCombineSlots / plan.combine_lanes)),
                         static_cast<unsigned>(kCombineChunks), 1};
    plan.combine_block = {static_cast<unsigned>(kCombineThreadsX), static_cast<unsigned>(kCombineSlots), 1};
  }
  plan.adapter_waits_only_before_mask =
      wgmma || (s.modelled_block_tiles > 0 && s.modelled_block_tiles <= config.adapter_mask_wait_max_block_tiles);
  plan.valid = true;
  return plan;
}

PlanShape plan_shape(const std::vector<int>& kv_lens, int tree_size, int num_heads, PageTableKind page_kind,
                     int page_size, std::int64_t pool_rows) {
  PlanShape shape;
  shape.batch = static_cast<int>(kv_lens.size());
  shape.tree_size = tree_size;
  shape.num_heads = num_heads;
  shape.max_kv_len = kv_lens.empty() ? 0 : *std::max_element(kv_lens.begin(), kv_lens.end());
  shape.kv_lens = kv_lens.data();
  shape.page_kind = page_kind;
  shape.page_size = page_size;
  shape.pool_rows = pool_rows;
  return shape;
}

namespace {

std::string shape_error(const PlanShape& shape) {
  return planner_shape_error(shape.batch, shape.tree_size, shape.num_heads, shape.max_kv_len, shape.kv_lens);
}

}  // namespace

LaunchPlan make_launch_plan_for_path(FlashVerifyPath path, const PlanShape& shape, const DeviceTarget& target,
                                     const PlannerConfig& config) {
  if (const std::string why = shape_error(shape); !why.empty()) return invalid(LaunchPlan{}, why);
  const SplitSchedule s =
      plan_split_schedule_for_path(path, shape.batch, shape.tree_size, shape.num_heads, shape.max_kv_len,
                                   target.num_sms, target.main_blocks_per_sm, shape.kv_lens, config);
  LaunchPlan plan = complete_launch_plan(s, shape, target, config);
  if (path == FlashVerifyPath::kWgmma && shape.kv_dtype != KvDtype::kBf16) {
    plan.valid = false;
    plan.why_invalid = "the wgmma engine has no fp8 KV path yet";
  }
  return plan;
}

LaunchPlan make_launch_plan(const PlanShape& shape, const DeviceTarget& target, const PlannerConfig& config) {
  if (const std::string why = shape_error(shape); !why.empty()) return invalid(LaunchPlan{}, why);
  const SplitSchedule s =
      plan_split_schedule(shape.batch, shape.tree_size, shape.num_heads, shape.max_kv_len, target.num_sms,
                          target.main_blocks_per_sm, target.wgmma && shape.kv_dtype == KvDtype::kBf16, shape.kv_lens,
                          shape.page_size, config);
  return complete_launch_plan(s, shape, target, config);
}

std::string describe(const LaunchPlan& plan) {
  const SplitSchedule& s = plan.schedule;
  if (!plan.valid) return std::string("invalid: ") + plan.why_invalid;
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%s stages=%d smem=%d m_tiles=%d splits=%d", to_string(plan.instance),
                        plan.pipeline_stages, plan.smem_bytes, s.m_tiles, s.num_splits);
  if (s.tiles_per_split > 0) n += std::snprintf(buf + n, sizeof buf - n, " tiles/split=%d", s.tiles_per_split);
  if (s.tile_balanced) {
    n += std::snprintf(buf + n, sizeof buf - n, " slots=%d units/block=%d", s.balanced_slots, s.modelled_block_tiles);
  }
  if (plan.math != MathMode::kBf16) n += std::snprintf(buf + n, sizeof buf - n, " math=%s", to_string(plan.math));
  n += std::snprintf(buf + n, sizeof buf - n, " grid=%ux%ux%u", plan.main_grid.x, plan.main_grid.y, plan.main_grid.z);
  if (s.num_splits > 1) {
    std::snprintf(buf + n, sizeof buf - n, " combine=%dx%d", plan.combine_lanes, plan.combine_loads_per_lane);
  }
  return buf;
}

DeviceTarget current_device_target(cudaError_t* error) {
  DeviceTarget t;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&t.num_sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&t.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  }
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&t.smem_optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err == cudaSuccess) t.wgmma = flash_verify_wgmma_supported(&err);
  if (err == cudaSuccess) t.main_blocks_per_sm = flash_verify_blocks_per_sm(&err);
  if (error) *error = err;
  return t;
}

}  // namespace vb
