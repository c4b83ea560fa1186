# The balance lab end to end: a generated workload, two balancers, CSV on stdout.
add_test(NAME balance_lab.csv
  COMMAND $<TARGET_FILE:balance_lab> --workload clustered --patches-count 1000 --ranks 8
          --balancer knapsack --balancer round_robin)
set_tests_properties(balance_lab.csv PROPERTIES
  ENVIRONMENT "${PW_TEST_ENV}"
  PASS_REGULAR_EXPRESSION
  "workload,patches,ranks,balancer,imbalance,std,idle_pct,est_balance_pct,uintah_i,lower_bound,patches_out,split,comm_cut,migrated_cost_pct,plan_ms\nclustered,[0-9]+,8,knapsack,[0-9.]+,"
  TIMEOUT 120)
