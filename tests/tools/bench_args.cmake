# The benchmark executables on bad arguments: exit code 2 and the message naming the option
# and what it expects, nothing on stdout. bench_poisson read its numbers with std::stoi
# ("--n 0" printed a NaN residual with exit code 0, "--bc diriclet" ran periodic), and
# every bench read integers as C does ("010" was 8).
function(pw_bench_bad_args name target expected)
  add_test(NAME bench_args.${name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_error.sh "${expected}"
            $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(bench_args.${name} PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
    TIMEOUT 60)
endfunction()

pw_bench_bad_args(poisson_n_zero bench_poisson
  "bench_poisson: error: --n: expected an integer in [2, 4096], got 0" --n 0)
pw_bench_bad_args(poisson_bc bench_poisson
  "bench_poisson: error: --bc: diriclet not in {periodic,dirichlet}" --bc diriclet)
pw_bench_bad_args(poisson_cycle bench_poisson
  "bench_poisson: error: --cycle: W not in {V,F}" --cycle W)
pw_bench_bad_args(poisson_no_sweeps bench_poisson
  "bench_poisson: error: --smooth: expected at least one sweep, got 0 0" --smooth 0 0)
pw_bench_bad_args(poisson_omega bench_poisson
  "bench_poisson: error: --omega: expected a number in (0, 2), got nan" --omega nan)
pw_bench_bad_args(poisson_level_cycles bench_poisson
  "bench_poisson: error: --level-cycles requires --refined" --level-cycles 2)
pw_bench_bad_args(poisson_unknown bench_poisson
  "bench_poisson: error: The following argument was not expected: --bogus" --bogus)
pw_bench_bad_args(kernel_hex bench_kernel "n: expected an integer in [1, 4096], got 0x10"
  0x10)
# Read in decimal: "010" is 10 cells a side (and the solve converges: exit code 0).
add_test(NAME bench_args.poisson_decimal
  COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_output.sh
          "^patchwork_mg bc=periodic n=10 .* rel_residual_max=[0-9.]+e-(1[1-9]|[2-9][0-9])$"
          -- $<TARGET_FILE:bench_poisson> --n 010 --repeats 1)
set_tests_properties(bench_args.poisson_decimal PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)
