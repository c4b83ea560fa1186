# The executable on bad input: exit code 2 and one message naming the file, the line, the key
# and what was expected, before any work (nothing on stdout). Run at 2 ranks too, so that
# the message is printed once. Each test runs in its own directory, as a deck error is
# recorded in output.dir's run summary and tests run at the same time.
set(PW_DECKS ${CMAKE_CURRENT_LIST_DIR}/decks)
set(PW_GOOD_DECK ${PROJECT_SOURCE_DIR}/inputs/bubble_2d.toml)

function(pw_bad_deck name expected)
  pw_bad_input(${name} "${expected}" "" ${ARGN})
endfunction()

# As pw_bad_deck, for errors found once the run has started: exit code `code`, the
# run's log allowed on stdout.
function(pw_bad_run name expected code)
  pw_bad_input(${name} "${expected}" "PW_EXPECT_CODE=${code};PW_ALLOW_STDOUT=1" ${ARGN})
endfunction()

function(pw_bad_input name expected env)
  foreach(np 1 2)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/bad_deck/${name}.np${np})
    file(MAKE_DIRECTORY ${dir})
    add_test(NAME bad_deck.${name}.np${np}
      COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect_error.sh "${expected}"
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
              $<TARGET_FILE:patchwork> ${ARGN}
      WORKING_DIRECTORY ${dir})
    set_tests_properties(bad_deck.${name}.np${np} PROPERTIES
      ENVIRONMENT "${PW_TEST_ENV};${env}" TIMEOUT 60)
  endforeach()
endfunction()

pw_bad_deck(unknown_key "typo.toml:6: amr.max_levle: unknown key (did you mean amr.max_level?)"
  ${PW_DECKS}/typo.toml)
pw_bad_deck(patch_size "bad_patch_size.toml:7: amr.max_grid_size: expected a positive multiple of amr.blocking_factor (8), got 12"
  ${PW_DECKS}/bad_patch_size.toml)
pw_bad_deck(wrong_type "argument \"amr.max_level=two\": amr.max_level: expected an integer, got a string"
  ${PW_GOOD_DECK} amr.max_level=two)
pw_bad_deck(domain_blocking "domain.n_cell: expected a multiple of amr.blocking_factor (8) in every direction"
  ${PW_GOOD_DECK} domain.n_cell=[60,64])
pw_bad_deck(ratio "amr.ref_ratio: expected 2 or 4, got 3" ${PW_GOOD_DECK} amr.ref_ratio=3)
pw_bad_deck(ratio_count "amr.ref_ratio: expected a single integer or an array of 2"
  ${PW_GOOD_DECK} amr.ref_ratio=[2])
pw_bad_deck(unknown_balancer "balance.method: unknown balancer 'nope'; known: "
  ${PW_GOOD_DECK} balance.method=nope)
pw_bad_deck(unknown_velocity "advection.velocity: expected one of uniform, rotation, swirl, got 'foo'"
  ${PW_GOOD_DECK} advection.velocity=foo)
pw_bad_deck(missing_file "nowhere.toml: cannot open deck file" nowhere.toml)
pw_bad_deck(bad_override "expected \"section.key=value\" (no '=' found)"
  ${PW_GOOD_DECK} amr.max_level)
pw_bad_deck(balance_levels "balance.levels: expected \"each\" or \"all\", got 'some'"
  ${PW_GOOD_DECK} balance.levels=some)
pw_bad_deck(balance_interval "balance.interval: expected a number of coarse steps >= 0"
  ${PW_GOOD_DECK} balance.interval=-1)
pw_bad_deck(rank_speeds "ranks.speed: expected one entry per rank"
  ${PW_GOOD_DECK} ranks.speed=[1.0,1.0,1.0])
pw_bad_deck(rank_slowdown "ranks.slowdown: expected a factor in [1, 1000]"
  ${PW_GOOD_DECK} ranks.slow=[0] ranks.slowdown=0.5)
pw_bad_deck(rank_slow "ranks.slow: expected ranks in [0, "
  ${PW_GOOD_DECK} ranks.slow=[7])
pw_bad_deck(rank_latency "ranks.latency: expected seconds in [0, 10]"
  ${PW_GOOD_DECK} ranks.latency=-1.0)
pw_bad_deck(rank_groups "ranks.groups: give ranks.groups or ranks.group_size, not both"
  ${PW_GOOD_DECK} ranks.groups=[0] ranks.group_size=1)
pw_bad_deck(lan_distributed_levels "balance.levels: lan_distributed balances all levels in one call"
  ${PW_GOOD_DECK} balance.method=lan_distributed balance.levels=each)
pw_bad_deck(lan_distributed_gamma "balance.lan_distributed.gamma: expected a factor > 0"
  ${PW_GOOD_DECK} balance.method=lan_distributed balance.lan_distributed.gamma=0.0)
set(PW_POISSON_DECK ${PROJECT_SOURCE_DIR}/inputs/poisson_2d.toml)
pw_bad_deck(poisson_solve
  "poisson.solve: expected \"composite\" or \"levels\", got \"multilevel\""
  ${PW_POISSON_DECK} poisson.solve=multilevel)
pw_bad_deck(gravity_composite
  "poisson.solve: self-gravity is solved level by level at each level step"
  ${PROJECT_SOURCE_DIR}/inputs/clumps_3d.toml poisson.solve=composite)
pw_bad_deck(poisson_cycles "poisson.max_cycles: expected an integer >= 1, got 0"
  ${PW_POISSON_DECK} poisson.max_cycles=0)
# A solve that does not converge, under fail_on_divergence: the run went wrong (exit
# code 3), in both solve modes (it was exit code 2, as for bad input).
foreach(mode composite levels)
  pw_bad_run(poisson_diverged_${mode} "patchwork: run failed: poisson.fail_on_divergence: the solve did not converge: poisson: " 3
    ${PW_POISSON_DECK} poisson.solve=${mode} poisson.max_cycles=1
    poisson.fail_on_divergence=true output.write=false time.max_step=1)
endforeach()
# Blocking factor 2 leaves a refined level no coarser grid: its CG must reach the solve's
# target (stopped at 1e-4 of the rhs, every refined level's solve ran out of cycles).
add_test(NAME poisson_levels_blocking_factor_2
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/expect_output.sh "^poisson: 6 level solves, "
          -- $<TARGET_FILE:patchwork> ${PW_POISSON_DECK} poisson.solve=levels
          amr.blocking_factor=2 poisson.fail_on_divergence=true output.write=false
          time.max_step=1)
set_tests_properties(poisson_levels_blocking_factor_2 PROPERTIES
  ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 120)
pw_bad_deck(poisson_bc "poisson.bc_lo: expected \"dirichlet\", \"neumann\" or \"periodic\", got \"robin\""
  ${PW_POISSON_DECK} "domain.periodic=[false,true]" "poisson.bc_lo=[\"robin\",\"periodic\"]")
pw_bad_deck(clumps_count "clumps.count: expected 1 to 64, got 0"
  ${PW_POISSON_DECK} clumps.count=0)

# Hostile text: refused before toml11 parses it (amr/deck_limits.hpp), in well under a
# second, instead of a crash (deep nesting), minutes of parsing or memory exhaustion.
pw_bad_deck(too_big "/dev/zero: longer than 64 KiB (a deck is a TOML file of a few KB)"
  /dev/zero)
pw_bad_deck(nul_byte "nul_byte.toml:3: a NUL byte: expected a deck (a TOML text file)"
  ${PW_DECKS}/nul_byte.toml)
pw_bad_deck(nul_string
  "nul_string.toml:6: output.prefix: expected a string, got \"plt\\u0000x\" (a NUL character"
  ${PW_DECKS}/nul_string.toml)
pw_bad_deck(nul_override
  "output.dir: expected a string, got \"out\\u0000put\" (a NUL character"
  ${PW_GOOD_DECK} "output.dir=\"out\\u0000put\"")
pw_bad_deck(nested "nested.toml:4: arrays and tables nested more than 16 deep"
  ${PW_DECKS}/nested.toml)
pw_bad_deck(dotted_key "dotted_key.toml:4: a dotted key of more than 8 parts"
  ${PW_DECKS}/dotted_key.toml)
pw_bad_deck(keys_per_line "keys_per_line.toml:4: more than 256 keys on one line"
  ${PW_DECKS}/keys_per_line.toml)
string(REPEAT "1, " 6000 PW_LONG_ARRAY)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/long_line.toml
  "[domain]\nn_cell = [64, 64]\nlist = [${PW_LONG_ARRAY}1]\n")
pw_bad_deck(long_line
  "long_line.toml:3: a line longer than 16 KiB (split long arrays over several lines)"
  ${CMAKE_CURRENT_BINARY_DIR}/long_line.toml)
pw_bad_deck(override_key_parts
  "with a key of letters, digits, '_' or '-' joined by at most 7 dots, got"
  ${PW_GOOD_DECK} a.b.c.d.e.f.g.h.i=1)
pw_bad_deck(override_nested "argument \"junk=[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]\": arrays and tables nested more than 16 deep"
  ${PW_GOOD_DECK} "junk=[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]")

# Sizes the domain does not allow: buffers wider than the domain (a huge n_error_buf
# looped for hours, a huge n_proper stopped in make_fine_boxes), cell sizes and volumes
# that overflow or underflow (the run ended with "final -nan" and exit code 0).
pw_bad_deck(n_error_buf "amr.n_error_buf: expected at most 128 (the domain's extent in cells of level 1, the finest level tagged: a wider buffer adds nothing), got 1000000000"
  ${PW_GOOD_DECK} amr.n_error_buf=1000000000)
pw_bad_deck(n_proper "amr.n_proper: expected at most 64 (the smallest extent of the level-0 domain, domain.n_cell = [64, 64]: a wider buffer leaves no room for a finer level), got 65"
  ${PW_GOOD_DECK} amr.n_proper=65)
pw_bad_deck(extent_overflow "domain.prob_hi: expected cell sizes that are finite normal numbers on every level, got inf along x on level 0"
  ${PW_GOOD_DECK} "domain.prob_lo=[-1e308,0.0]" "domain.prob_hi=[1e308,1.0]")
pw_bad_deck(extent_underflow "domain.prob_hi: expected cell sizes that are finite normal numbers on every level, got 1.6e-322 along x on level 0"
  ${PW_GOOD_DECK} "domain.prob_hi=[1e-320,1e-320]")
pw_bad_deck(volume_underflow "domain.prob_hi: expected cell volumes that are finite normal numbers on every level, got 0.0 on level 0"
  ${PW_GOOD_DECK} "domain.prob_hi=[1e-300,1e-300]")
pw_bad_deck(volume_overflow "domain.prob_hi: expected cell volumes that are finite normal numbers on every level, got inf on level 0"
  ${PW_GOOD_DECK} "domain.prob_hi=[1e200,1e200]")

# Sizes that would not fit: refused before anything is allocated, with the estimate and
# what it is compared with (--max-memory, so that the verdict is the machine's own).
pw_bad_deck(memory_cells "domain.n_cell: level 0 (1.074e+09 cells, 1 component, 2 ghost layers) needs about 21.7 GB of field data"
  ${PW_GOOD_DECK} "domain.n_cell=[32768,32768]" amr.max_level=0 --max-memory=16GB)
pw_bad_deck(memory_components "domain.n_cell: level 0 (4096 cells, 1000000 components, 2 ghost layers) needs about 158 GB of field data"
  ${PW_GOOD_DECK} advection.ncomp=1000000 --max-memory=16GB)
pw_bad_deck(memory_ghosts "more than the 500 kB of ranks.memory_per_node"
  ${PW_GOOD_DECK} amr.blocking_factor=2 amr.max_grid_size=2 --max-memory=500kB)
# Level 0 fits, the refined levels its tags ask for do not: refused before they are
# allocated, exit code 3 (the run had started), with the level and the figures.
pw_bad_run(memory_refined_levels "run failed: building the initial hierarchy: level 1 would have 3.277e+04 cells in 8 patches, and the hierarchy would then need about 4.1 MB of field data" 3
  ${PROJECT_SOURCE_DIR}/inputs/bubble_3d.toml time.max_step=2 output.write=false --max-memory=3MB)
pw_bad_deck(max_memory_unit "command line: --max-memory: expected a size > 0 such as 16GB, 512MiB or 1000000 (bytes), got abc"
  ${PW_GOOD_DECK} --max-memory=abc)
pw_bad_deck(memory_per_node "ranks.memory_per_node: expected \"physical\" or a size such as \"16GB\""
  ${PW_GOOD_DECK} "ranks.memory_per_node=\"lots\"")

# A fixed time step above the CFL limit of the state it would advance: an error at the
# first step, not a silent instability (a warning under time.allow_unstable_dt).
pw_bad_run(fixed_dt_above_cfl "time.fixed_dt: expected at most the CFL limit; 0.1 is above the CFL limit 0.0156266 (CFL number 1) of step 1, time 0: the run would be unstable (time.allow_unstable_dt = true runs it anyway)" 2
  ${PW_GOOD_DECK} time.fixed_dt=0.1 output.write=false)
pw_bad_run(fixed_dt_allowed "patchwork: warning: time.fixed_dt: 0.1 is above the CFL limit" 0
  ${PW_GOOD_DECK} time.fixed_dt=0.1 time.allow_unstable_dt=true time.max_step=2
  output.write=false)

# Non-finite numbers where a cost or a speed is expected (they ran, balancing on NaN).
pw_bad_deck(cost_patch_nan "balance.cost_patch: expected a finite number >= 0, got nan"
  ${PW_GOOD_DECK} balance.cost=model balance.cost_patch=nan)
pw_bad_deck(cost_cell_inf "balance.cost_cell: expected a finite number >= 0, got inf"
  ${PW_GOOD_DECK} balance.cost=model balance.cost_cell=inf)
pw_bad_deck(rank_slowdown_inf "ranks.slowdown: expected a factor in [1, 1000]"
  ${PW_GOOD_DECK} "ranks.slow=[0]" ranks.slowdown=inf)
# Finite but beyond any run: the busy waits never ended (the run spun until killed).
pw_bad_deck(rank_slowdown_huge "ranks.slowdown: expected a factor in [1, 1000] (kernels take this many times longer), got 1e+300"
  ${PW_GOOD_DECK} "ranks.slow=[0]" ranks.slowdown=1e300)
pw_bad_deck(rank_latency_huge "ranks.latency: expected seconds in [0, 10] added to exchanges between groups, got 1e+300"
  ${PW_GOOD_DECK} ranks.group_size=1 ranks.latency=1e300)

# A state that turns non-finite stops the run on every rank with exit code 3, naming the
# step, level, patch and component (it ran to "final inf" with exit code 0).
pw_bad_run(nonfinite_state "patchwork: run failed: the state is not finite after step 0: level 0, patch 0 [(0,0,0) (31,31,0)], component phi0 holds a NaN or an infinity" 3
  ${PW_GOOD_DECK} advection.amplitude=1.7e308 advection.background=1.7e308
  output.write=false)
# The same in mid-run (the first step's update overflows): the check after a coarse step
# reads level 0, which then holds the average of every finer cell, and names level 0's
# patch as the search of every level did.
pw_bad_run(nonfinite_state_mid_run "patchwork: run failed: the state is not finite after step 1: level 0, patch 2 [(0,32,0) (31,63,0)], component phi0 holds a NaN or an infinity" 3
  ${PW_GOOD_DECK} advection.amplitude=1.2e308 advection.background=-1.1e308
  output.write=false)
# A hook that writes the state after the last average-down (the Poisson workload's
# level-by-level solve writes phi on every level): level 0 does not show the finer
# levels then, and every level is read (level 0 alone ended this run with exit 0).
pw_bad_run(nonfinite_state_written_at_sync "patchwork: run failed: the state is not finite after step 1: level 2, patch 24 [(248,248,0) (279,263,0)], component phi holds a NaN or an infinity" 3
  ${PROJECT_SOURCE_DIR}/inputs/poisson_2d.toml poisson.solve=levels time.max_step=1
  clumps.amplitude=1e305 output.write=false)
pw_bad_deck(ncomp_int_max "advection.ncomp: expected an integer in [1, 10000000]"
  ${PW_GOOD_DECK} advection.ncomp=2147483647)
pw_bad_deck(extra_work_above_nan "advection.extra_work_above: expected a finite number"
  ${PW_GOOD_DECK} advection.extra_work=1 advection.extra_work_above=nan)

# A key given twice on the command line: the first was silently overridden.
pw_bad_deck(override_twice "command line: argument \"amr.max_level=2\": amr.max_level: given twice on the command line (also argument \"amr.max_level=1\")"
  ${PW_GOOD_DECK} amr.max_level=1 amr.max_level=2)
pw_bad_deck(max_memory_and_key "command line: --max-memory sets ranks.memory_per_node, which argument \"ranks.memory_per_node=2GB\" gives too"
  ${PW_GOOD_DECK} --max-memory=1GB ranks.memory_per_node=2GB)
# --check finds what a run would, before it starts (and writes no summary).
pw_bad_deck(check_unknown_key "command line: argument \"amr.max_levl=2\": amr.max_levl: unknown key (did you mean amr.max_level?)"
  --check ${PW_GOOD_DECK} amr.max_levl=2)
pw_bad_deck(check_ranks "command line: argument \"ranks.speed=[1.0]\": ranks.speed: expected one entry per rank (2 ranks in this run), got 1"
  --check --ranks 2 ${PW_GOOD_DECK} "ranks.speed=[1.0]")
pw_bad_deck(ranks_without_check "command line: --ranks requires --check"
  --ranks 2 ${PW_GOOD_DECK})
# Numbers on the command line are read in decimal: CLI11 read "010" as 8 and "0x10" as 16.
pw_bad_deck(check_ranks_decimal "ranks.speed: expected one entry per rank (10 ranks in this run), got 1"
  --check --ranks 010 ${PW_GOOD_DECK} "ranks.speed=[1.0]")
pw_bad_deck(check_ranks_hex "command line: --ranks: expected an integer in [1, 16777216], got 0x10"
  --check --ranks 0x10 ${PW_GOOD_DECK})
pw_bad_deck(max_memory_decimal "more than the 10 kB of ranks.memory_per_node"
  ${PW_GOOD_DECK} --max-memory=010kB)
pw_bad_deck(max_memory_hex "command line: --max-memory: expected a size > 0 such as 16GB, 512MiB or 1000000 (bytes), got 0x10GB"
  ${PW_GOOD_DECK} --max-memory=0x10GB)
pw_bad_deck(memory_per_node_decimal "more than the 10 kB of ranks.memory_per_node"
  ${PW_GOOD_DECK} "ranks.memory_per_node=\"010kB\"")
# A misspelt unit was hidden behind "expected units.length too".
pw_bad_deck(units_misspelt "command line: argument \"units.lenght=1\": units.lenght: unknown key (did you mean units.length?)"
  ${PW_GOOD_DECK} units.lenght=1 units.time=1 units.mass=1)
# A good deck: "deck OK", exit code 0, and no output folder made.
add_test(NAME check_good_deck
  COMMAND sh -c "\"$0\" --check \"$1\" output.dir=\\\"$2\\\" | grep -q '^deck OK: ' && test ! -e \"$2\""
          $<TARGET_FILE:patchwork> ${PW_GOOD_DECK} ${CMAKE_CURRENT_BINARY_DIR}/check_good_deck)
set_tests_properties(check_good_deck PROPERTIES ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 60)
# A byte count beyond 64 bits was capped by CLI11 and accepted.
pw_bad_deck(max_memory_overflow "command line: --max-memory: expected a size > 0 such as 16GB, 512MiB or 1000000 (bytes), got 18446744073709551616"
  ${PW_GOOD_DECK} --max-memory=18446744073709551616)
# [ranks] lists: a speed past the lab's range printed "imbalance inf" and a NaN summary
# with exit code 0; a negative group id and a rank slowed twice were taken silently.
pw_bad_deck(rank_speed_tiny "command line: argument \"ranks.speed=[1e-308,1.0]\": ranks.speed: expected relative speeds in [1e-6, 1e6] (beyond, loads and their sums overflow), got 1e-308 for rank 0"
  --check --ranks 2 ${PW_GOOD_DECK} "ranks.speed=[1e-308,1.0]")
pw_bad_deck(rank_speed_huge "ranks.speed: expected relative speeds in [1e-6, 1e6] (beyond, loads and their sums overflow), got 1e+07 for rank 1"
  --check --ranks 2 ${PW_GOOD_DECK} "ranks.speed=[1.0,1e7]")
pw_bad_deck(rank_groups_negative "ranks.groups: expected group ids >= 0 (ranks with the same id form a group), got -1 for rank 1"
  --check --ranks 2 ${PW_GOOD_DECK} "ranks.groups=[5,-1]")
pw_bad_deck(rank_slow_twice "ranks.slow: expected each rank once, got rank 0 twice"
  --check --ranks 2 ${PW_GOOD_DECK} "ranks.slow=[0,0]")

# A deck switched to another problem or module on the command line: the old section's
# keys were "unknown", as if misspelt.
pw_bad_deck(problem_switched
  "blast.radius: the [blast] section is read only when hydro.problem = \"blast\" (this run's is \"jeans\")"
  ${PROJECT_SOURCE_DIR}/inputs/blast_2d.toml hydro.problem=jeans)
pw_bad_deck(module_switched
  "advection.velocity: the [advection] section is read only when physics.module = \"advection\" (this run's is \"hydro\")"
  ${PW_GOOD_DECK} physics.module=hydro)
pw_bad_deck(keep_freed_memory "ranks.keep_freed_memory: expected a boolean, got a string (\"yes\")"
  ${PW_GOOD_DECK} "ranks.keep_freed_memory=\"yes\"")
