/* verifybench_timing.h: the harness's GPU timer (harness/measure/timing.h) behind a C ABI, so that
 * kernels launched from another language (the peers runner, python -m verifybench.peers)
 * are timed exactly as `verifybench run --time` times the production kernel: the same
 * dedicated stream, cold-L2 read flush, hold kernel in front of unflushed samples, warm-up,
 * NVML readings, stop rule and statistics. */
#ifndef VERIFYBENCH_TIMING_H
#define VERIFYBENCH_TIMING_H

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues one launch of the thing timed on `stream` (a cudaStream_t) and returns its CUDA
 * error (0: success). overlap is the harness's programmatic-dependent-launch flag (only
 * chain-pdl samples set it; a launch that cannot overlap ignores it). */
typedef int (*vbtiming_launch_fn)(void* stream, int overlap, void* context);

/* Measures `launch` in every mode of `modes` ("cold,hot,graph,chain,chain-pdl", as
 * `verifybench run --modes`), samples interleaved, with the harness's stop rule. l2_flush:
 * "read" or "write". On success *json_out is a malloc'd JSON array of timing records in
 * result.json's form (free it with vbtiming_free) and 0 is returned; otherwise nonzero and
 * vbtiming_last_error() says why. A failing launch ends the measurement (its records say
 * "error: ..." in stop_reason) but still returns 0 with the records. */
int vbtiming_measure(const char* modes, double target_noise, int min_samples, int max_samples, double budget_s,
                     int warmup_launches, const char* l2_flush, vbtiming_launch_fn launch, void* context,
                     char** json_out);
void vbtiming_free(char* json);
const char* vbtiming_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* VERIFYBENCH_TIMING_H */
