# The balance lab on bad patch files: exit code 2 and one message naming the file, the
# line and what was expected, nothing on stdout (tests/app/expect_error.sh). Add a case
# for each new kind found.
set(PW_PATCHES ${CMAKE_CURRENT_LIST_DIR}/patches)
function(pw_bad_patches name expected file)
  add_test(NAME bad_patches.${name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_error.sh "${expected}"
            $<TARGET_FILE:balance_lab> --patches ${PW_PATCHES}/${file} --ranks 2
            --balancer knapsack ${ARGN})
  set_tests_properties(bad_patches.${name} PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
    TIMEOUT 60)
endfunction()

pw_bad_patches(overlap "bad_overlap.txt:4: box: overlaps the box of line 3 on level 0"
  bad_overlap.txt)
pw_bad_patches(duplicate
  "bad_dup.txt:4: box: overlaps the box of line 3 on level 0 (the same box)" bad_dup.txt)
pw_bad_patches(huge_side "bad_side.txt:2: box: expected indices in [-536870911, 536870911]"
  bad_side.txt)
pw_bad_patches(cost_sum "bad_sum.txt: cost: the costs sum to inf, expected a finite total > 0"
  bad_sum.txt)
pw_bad_patches(cost_zero_sum
  "bad_zero_sum.txt: cost: the costs sum to 0, expected a finite total > 0" bad_zero_sum.txt)
pw_bad_patches(k_in_2d "bad_k.txt:3: box: expected k = 0 in 2D (dim 2)" bad_k.txt)
pw_bad_patches(refinement_twice "bad_ref2.txt:3: refinement: given twice" bad_ref2.txt)
# Costs whose loads on the slowest rank overflow (cost / speed): the metrics read inf.
pw_bad_patches(load_overflow
  "bad_load.txt: cost: the costs sum to 2e+305 and the slowest --speed is 1e-06: a rank's load (cost / speed) could pass 1e+300, where the metrics overflow"
  bad_load.txt --speed 1 1e-6)
# An owner is -1 or a rank below --ranks (2 here): one beyond int range, or beyond the
# ranks, was taken (or silently dropped) and gave a wrong migrated_cost_pct.
pw_bad_patches(owner_overflow
  "bad_owner_big.txt:4: owner: expected -1 (none) or a rank < 2 (--ranks), got 99999999999"
  bad_owner_big.txt)
pw_bad_patches(owner_wrap
  "bad_owner_wrap.txt:5: owner: expected -1 (none) or a rank < 2 (--ranks), got 4294967297"
  bad_owner_wrap.txt)
pw_bad_patches(owner_beyond_ranks
  "bad_owner_rank.txt:4: owner: expected -1 (none) or a rank < 2 (--ranks), got 5"
  bad_owner_rank.txt)
pw_bad_patches(owner_sign
  "bad_owner_sign.txt:4: owner: expected -1 (none) or a rank < 2 (--ranks), got -"
  bad_owner_sign.txt)
# The malformed field is the one named (a stream read "0" and blamed the owner).
pw_bad_patches(cost_hex
  "bad_cost_hex.txt:3: cost: expected a finite number >= 0, got 0x100" bad_cost_hex.txt)
# A directory opens as an empty stream: it read as a file missing its 'refinement' line.
add_test(NAME bad_patches.directory
  COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_error.sh
          "${PW_PATCHES}: is a directory, expected a patch file"
          $<TARGET_FILE:balance_lab> --patches ${PW_PATCHES} --ranks 2
          --balancer knapsack)
set_tests_properties(bad_patches.directory PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)
# Cell counts past a long: a cube of side 2^21 (2^63 cells) crashed lan; one of side
# 2^30 - 1 gave chop_pack an imbalance of 1.67 and a wrong comm_cut, exit code 0.
pw_bad_patches(cells_overflow
  "bad_cells.txt:3: box: expected at most 2^40 = 1099511627776 cells, got 2097152 x 2097152 x 2097152"
  bad_cells.txt --balancer lan --ranks 4)
pw_bad_patches(cells_wrap
  "bad_cells_wrap.txt:3: box: expected at most 2^40 = 1099511627776 cells, got 1073741823 x 1073741823 x 1073741823"
  bad_cells_wrap.txt --balancer chop_pack)
# A file with no newline was read whole into memory (it hung and grew until killed); the
# memory limit keeps a regression from taking the machine with it.
add_test(NAME bad_patches.no_newline
  COMMAND sh -c "ulimit -v 4000000 && exec \"$@\"" sh
          ${PROJECT_SOURCE_DIR}/tests/app/expect_error.sh
          "/dev/zero:1: a line longer than 65536 bytes: expected one patch per line"
          $<TARGET_FILE:balance_lab> --patches /dev/zero --ranks 2 --balancer knapsack)
set_tests_properties(bad_patches.no_newline PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)
