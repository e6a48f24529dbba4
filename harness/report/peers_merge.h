// `verifybench run --peers FILE`: the peer rows `python -m verifybench.peers` wrote (one
// ExecutorResult per case and peer, in result.json's form) put into this run's case results
// beside production, so every writer (summary.md, results.csv, roofline.svg, result.json)
// shows them. A peer row timed cold-L2 next to a production row timed cold-L2 in this run
// gets the speedup (ExecutorResult::production_speedup); its detail stays the peer's own.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/result.h"

namespace vb {

struct PeerRows {
  std::string path;
  std::vector<std::pair<std::string, std::vector<ExecutorResult>>> cases;  // case name -> its peer rows
};

// Peers files are read only up to this size (a peers file carries one row per case and
// peer: far below it), parsed within the result files' document budget.
inline constexpr std::uintmax_t kMaxPeersFileBytes = std::uintmax_t{64} << 20;

// Reads a verifybench-peers/1 file through harness/io/files.h's bounded reader. Throws
// std::runtime_error naming the file and what was wrong: unreadable, not a regular file,
// too large, not JSON, another format, a malformed row, a row outside the peer namespace
// (kPeerExecutorPrefix, harness/record/result.h), a case or a row listed twice.
PeerRows read_peer_rows(const std::string& path);
// The same, of a document already parsed (the fuzz target's entry).
PeerRows peer_rows_from_json(const nlohmann::ordered_json& doc, const std::string& path);

struct PeerMergeSummary {
  int rows_merged = 0;
  int rows_without_speedup = 0;  // peer rows timed cold-l2 in a case whose production was not
  std::vector<std::string> cases_not_in_run;  // peer-file cases this run has no result for
};

// Appends each case's peer rows to the case result of that name (after its own executors).
// Peer rows never count in the run's verdict (CaseResult::all_passed, count_outcomes,
// exit_code_for skip kPeerExecutorPrefix rows).
PeerMergeSummary merge_peer_rows(const PeerRows& peers, std::vector<CaseResult>* results);

}  // namespace vb
