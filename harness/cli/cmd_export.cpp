// `verifybench export FILE --case NAME DIR`: one case's inputs and outputs in SGLang's tensor
// names and dtypes (safetensors + case.json), so other kernels can run on exactly the same
// bytes.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/export/export_safetensors.h"
#include "harness/run/gpu_executor.h"
#include "harness/run/runner.h"

namespace vb {
namespace {

struct ExportArgs {
  std::string file, case_name, dir;
  int threads = 0;
  ScenarioOptions scenario;
};

// The export folder and its three files, checked before the reference is computed: a
// folder that is a file, or an export file that is a link, device, FIFO, socket or
// directory, is bad input (exit 2) with nothing done. The folder is not created here: a
// failed export removes only folders it made.
void check_export_destination(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    throw UsageError(fmt::format("DIR {}: not a directory; allowed: a folder (created if missing)", dir));
  }
  for (const std::string& path : export_file_paths(dir)) check_destination(path, "export file");
}

int export_one_case(const ExportArgs& args, const std::string& command_line) {
  check_export_destination(args.dir);
  const std::vector<ScenarioFile> loaded = load_all({args.file}, args.scenario);
  const CaseSpec& spec = select_one_case(loaded, args.file, args.case_name);
  ExportOptions options;
  options.scenario_path = args.file;
  options.command = command_line;
  options.reference_threads = args.threads;
  options.on_note = [](const std::string& note) { std::fprintf(stderr, "verifybench: %s\n", note.c_str()); };
  const GpuInfo gpu = query_gpu();
  if (!gpu.available) std::fprintf(stderr, "verifybench: GPU outputs not exported: %s\n", gpu.reason.c_str());
  const ExportResult result = export_case_from_spec(spec, gpu, args.dir, options);
  for (const std::string& f : result.files) std::printf("wrote %s\n", f.c_str());
  std::printf("%llu bytes; GPU outputs: %zu\n", static_cast<unsigned long long>(result.bytes_written),
              result.gpu_outputs_written.size());
  return kExitOk;
}

}  // namespace

CLI::App* add_export_command(CLI::App& app, const Invocation& invocation, int* exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write one case's inputs and outputs (CPU reference, and every GPU executor "
                "when a device is present) as safetensors in SGLang's tensor names and dtypes, "
                "plus case.json describing them.");
  add_one_case_options(cmd, &args->file, &args->case_name);
  add_launch_options(cmd, &args->scenario);
  cmd->add_option("DIR", args->dir, "output folder (created; replaced files are written atomically)")->required();
  cmd->add_option("--threads", args->threads, "CPU reference threads, 0..4096 (0: all hardware threads)")
      ->check(integer_in(0, 4096));
  add_limit_options(cmd, &args->scenario);
  cmd->callback([args, invocation, exit_code] {
    *exit_code = run_command([&] { return export_one_case(*args, invocation.command_line); });
  });
  return cmd;
}

}  // namespace vb
