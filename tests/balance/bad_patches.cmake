# The balance lab on bad patch files: exit code 2 and one message naming the file, the
# line and what was expected, nothing on stdout (tests/app/expect_error.sh). Add a case
# for each new kind found.
set(PW_PATCHES ${CMAKE_CURRENT_LIST_DIR}/patches)
function(pw_bad_patches name expected file)
  add_test(NAME bad_patches.${name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_error.sh "${expected}"
            $<TARGET_FILE:balance_lab> --patches ${PW_PATCHES}/${file} --ranks 2
            --balancer knapsack)
  set_tests_properties(bad_patches.${name} PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
    TIMEOUT 60)
endfunction()

pw_bad_patches(overlap "bad_overlap.txt:4: box: overlaps the box of line 3 on level 0"
  bad_overlap.txt)
pw_bad_patches(duplicate
  "bad_dup.txt:4: box: overlaps the box of line 3 on level 0 (the same box)" bad_dup.txt)
pw_bad_patches(huge_side "bad_side.txt:2: box: expected indices in [-536870911, 536870911]"
  bad_side.txt)
pw_bad_patches(cost_sum "bad_sum.txt: cost: the costs sum to inf, expected a finite total"
  bad_sum.txt)
pw_bad_patches(k_in_2d "bad_k.txt:3: box: expected k = 0 in 2D (dim 2)" bad_k.txt)
pw_bad_patches(refinement_twice "bad_ref2.txt:3: refinement: given twice" bad_ref2.txt)
