# The balance lab end to end: a generated workload, two balancers, CSV on stdout: the
# header and a row of each balancer, exit code 0.
add_test(NAME balance_lab.csv
  COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_output.sh
          "^workload,patches,ranks,balancer,imbalance,std,idle_pct,est_balance_pct,uintah_i,lower_bound,patches_out,split,comm_cut,migrated_cost_pct,plan_ms$"
          "^clustered,[0-9]+,8,knapsack,[0-9.]+,"
          "^clustered,[0-9]+,8,round_robin,[0-9.]+,"
          -- $<TARGET_FILE:balance_lab> --workload clustered --patches-count 1000 --ranks 8
          --balancer knapsack --balancer round_robin)
set_tests_properties(balance_lab.csv PROPERTIES ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 120)

# Bad option values: exit code 2 and one line naming the option, what it expects and the
# value, nothing on stdout. CLI::Range let NaN through (every comparison with it is
# false) and wrote DBL_MAX in full.
function(pw_lab_bad_option name expected)
  add_test(NAME balance_lab.bad_option.${name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_error.sh "${expected}"
            $<TARGET_FILE:balance_lab> --workload bubble --patches-count 100 --ranks 2
            --balancer knapsack ${ARGN})
  set_tests_properties(balance_lab.bad_option.${name} PROPERTIES
    ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 60)
endfunction()

pw_lab_bad_option(seed_negative
  "balance_lab: error: --seed: expected an integer >= 0, got -1" --seed -1)
pw_lab_bad_option(speed_nan
  "balance_lab: error: --speed: expected a positive finite number, got nan" --speed nan)
pw_lab_bad_option(speed_zero
  "balance_lab: error: --speed: expected a positive finite number, got 0" --speed 1 0)
pw_lab_bad_option(speed_inf
  "balance_lab: error: --speed: expected a positive finite number, got inf" --speed inf)
pw_lab_bad_option(speed_tiny
  "balance_lab: error: --speed: expected a relative speed in [1e-6, 1e6], got 1e-320"
  --speed 1e-320)
pw_lab_bad_option(time_nan
  "balance_lab: error: --time: expected a number in [0, 1], got nan" --time nan)
pw_lab_bad_option(step_seconds_nan
  "balance_lab: error: --step-seconds: expected a finite number >= 0, got nan"
  --step-seconds nan)
pw_lab_bad_option(alpha_negative
  "balance_lab: error: --alpha: expected a finite number >= 0, got -1" --alpha -1)
pw_lab_bad_option(beta_nan
  "balance_lab: error: --beta: expected a finite number >= 0, got nan" --beta nan)
pw_lab_bad_option(overhead_nan
  "balance_lab: error: --overhead: expected a finite number >= 0, got nan" --overhead nan)
pw_lab_bad_option(overhead_overflow
  "balance_lab: error: --overhead: expected a finite number >= 0, got 1e400"
  --overhead 1e400)
pw_lab_bad_option(max_size_unaligned
  "balance_lab: error: --max-size: expected multiples of --blocking-factor (8), got 20"
  --max-size 20)
pw_lab_bad_option(groups_zero
  "balance_lab: error: --groups: expected an integer in [1, 65536], got 0" --groups 0)
# Integers are read in decimal: CLI11 read "010" as 8 and "0x10" as 16.
pw_lab_bad_option(ranks_hex
  "balance_lab: error: --ranks: expected an integer in [1, 65536], got 0x10" --ranks 0x10)
pw_lab_bad_option(blocking_factor_octal
  "balance_lab: error: --blocking-factor: 10 not in {4,8,16}" --blocking-factor 010)
add_test(NAME balance_lab.ranks_decimal
  COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_output.sh "^bubble,[0-9]+,10,knapsack,"
          -- $<TARGET_FILE:balance_lab> --workload bubble --patches-count 100 --ranks 010
          --balancer knapsack)
set_tests_properties(balance_lab.ranks_decimal PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)
# The seed is any 64-bit unsigned integer, and no more.
pw_lab_bad_option(seed_overflow
  "balance_lab: error: --seed: expected an integer >= 0, got 18446744073709551616"
  --seed 18446744073709551616)
add_test(NAME balance_lab.seed_largest
  COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_output.sh "^bubble,[0-9]+,2,knapsack,"
          -- $<TARGET_FILE:balance_lab> --workload bubble --patches-count 100 --ranks 2
          --balancer knapsack --seed 18446744073709551615)
set_tests_properties(balance_lab.seed_largest PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)
