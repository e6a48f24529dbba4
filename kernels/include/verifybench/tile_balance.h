// The tile-balanced split schedule of the production kernel (SplitSchedule::tile_balanced)
// as plain arithmetic, for the host (planner, plan table, tests) and the device (both main
// kernels' walks, kernels/common/split_kv.h).
//
// Why: a batch of unequal lengths under a fixed split size leaves the last split of every
// request short, so the longest block holds more tiles than the average: one 64k request
// among 47 of 2k, 54 tiles where balanced blocks hold 43 units; on the H200 that batch ran
// 30 % faster balanced (2026-11-30: reports/h200/2026-11-30-balanced; the mixed-lengths batch,
// 121 against 111, did not on the mma.sync path, whose planner keeps fixed-size splits there;
// on the wgmma path, 61 -> 56 tiles per block, it ran 1.9 % faster:
// reports/h200/2026-11-30-planner; both in git history at 93371d3).
// Here the batch's KV tiles are laid end to end, request after
// request, each request preceded by `boundary_units` units that stand for what starting a
// request costs a block (its partial written, its Q loaded). The G blocks of a query-row
// tile own equal ranges of S = ceil(W / G) of these W units; a block walks its range request
// by request ("segments"). A request's partial slots are the blocks that hold at least one of
// its tiles, in block order; the block holding its last tile records them for the combine
// (slots_seen_by_last_segment).
// Everything is derived from the device-side lengths: a replayed graph with other lengths
// gets a valid schedule (every tile of every request in exactly one segment).
#pragma once
#include <cstdint>

#include "verifybench/hd.h"
#include "verifybench/verify_params.h"

namespace vb::tile_balance {

// How a launch passes the schedule to the kernels and the combine in their split_tiles
// argument: > 0 a length-aware plan's split size, 0 an even plan, < 0 the tile-balanced
// schedule with -split_tiles - 1 boundary units. The planner encodes, the kernels decode.
constexpr VB_HD int balanced_split_tiles_arg(int boundary_units) { return -boundary_units - 1; }
constexpr VB_HD int balanced_boundary_units(int split_tiles) { return -split_tiles - 1; }

// Units of one request: its KV tiles, behind the boundary's units.
VB_HD std::int64_t request_units(int kv_len, int tokens_per_tile, int boundary_units) {
  return boundary_units + (kv_len + tokens_per_tile - 1) / tokens_per_tile;
}

// S: units per block, at least 1.
VB_HD std::int64_t units_per_block(std::int64_t total_units, int blocks) {
  const std::int64_t s = (total_units + blocks - 1) / blocks;
  return s > 0 ? s : 1;
}

// One block's part of one request: tiles [tile_begin, tile_end) of request `request`,
// written as partial `slot` of that request.
struct Segment {
  int request = 0;
  int tile_begin = 0, tile_end = 0;
  int slot = 0;
  bool ends_request = false;  // holds the request's last tile: its block is the last slot
};

// A block's walk over its range [range_begin, range_end), positioned at `request`, whose
// units start at `request_start`.
struct Walk {
  std::int64_t units_per_block = 1;
  std::int64_t range_begin = 0, range_end = 0;
  std::int64_t request_start = 0;
  int request = 0;
  int block = 0;
};

// The walk's next segment (false: the range holds no more tiles). Requests whose only units
// in the range are boundary units are passed over.
// Params: VerifyParams, or the kernels' IndptrLengthParams (whose kv_len it calls).
template <class Params>
VB_HD bool next_segment(const Params& p, int tokens_per_tile, int boundary_units, Walk& w, Segment* seg) {
  while (w.request < p.batch && w.request_start < w.range_end) {
    const std::int64_t units = request_units(p.kv_len(w.request), tokens_per_tile, boundary_units);
    const std::int64_t first_tile = w.request_start + boundary_units;
    const std::int64_t lo = first_tile > w.range_begin ? first_tile : w.range_begin;
    const std::int64_t end = w.request_start + units;
    const std::int64_t hi = end < w.range_end ? end : w.range_end;
    const int request = w.request;
    ++w.request;
    w.request_start = end;
    if (lo < hi) {
      seg->request = request;
      seg->tile_begin = static_cast<int>(lo - first_tile);
      seg->tile_end = static_cast<int>(hi - first_tile);
      seg->slot = w.block - static_cast<int>(first_tile / w.units_per_block);
      seg->ends_request = hi == end;
      return true;
    }
  }
  return false;
}

// Whether a segment of tiles [tile_begin, tile_end) holds every tile of its request: that
// block then writes the request's final O and LSE itself (the kernels' "whole" requests).
VB_HD bool holds_whole_request(int tile_begin, int tile_end, int tokens_per_tile, int kv_len) {
  return tile_begin == 0 && tile_end * tokens_per_tile >= kv_len;  // < kv_len + one tile: fits int
}

// Partial slots of a request whose units start at `request_start`: the blocks from the one
// holding its first tile to the one holding its last.
VB_HD int request_slots(std::int64_t request_start, std::int64_t units, int boundary_units,
                               std::int64_t units_per_block) {
  const std::int64_t first = (request_start + boundary_units) / units_per_block;
  const std::int64_t last = (request_start + units - 1) / units_per_block;
  return static_cast<int>(last - first + 1);
}

// A request's partial slots as the block holding its last tile (Segment::ends_request) sees
// them: slot 0 is block `block - last.slot`, and there are last.slot + 1 (request_slots). That
// block records them for the combine (kernels/common/split_kv.h, record_request_slots).
struct RequestSlots {
  int first_block = 0;
  int slots = 0;
};
VB_HD RequestSlots slots_seen_by_last_segment(const Segment& last, int block) {
  return {block - last.slot, last.slot + 1};
}
// Serial forms (host; the device does the same with a warp, kernels/common/split_kv.h).
template <class Params>
std::int64_t total_units(const Params& p, int tokens_per_tile, int boundary_units) {
  std::int64_t total = 0;
  for (int b = 0; b < p.batch; ++b) total += request_units(p.kv_len(b), tokens_per_tile, boundary_units);
  return total;
}
template <class Params>
Walk start_walk(const Params& p, int tokens_per_tile, int boundary_units, int block, int blocks) {
  Walk w;
  w.block = block;
  const std::int64_t total = total_units(p, tokens_per_tile, boundary_units);
  w.units_per_block = units_per_block(total, blocks);
  w.range_begin = static_cast<std::int64_t>(block) * w.units_per_block;
  w.range_end = w.range_begin + w.units_per_block < total ? w.range_begin + w.units_per_block : total;
  // The first request whose units end past range_begin.
  while (w.request < p.batch) {
    const std::int64_t units = request_units(p.kv_len(w.request), tokens_per_tile, boundary_units);
    if (w.request_start + units > w.range_begin) break;
    w.request_start += units;
    ++w.request;
  }
  return w;
}

}  // namespace vb::tile_balance
