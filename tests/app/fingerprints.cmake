# Recorded answers: the decks' fingerprints as the code gave them before the level data
# refactor (the state became a LevelData, walls and interpolation declared per component
# by the physics module). A change that moves any bit of an advection run fails here.
# Short runs (a few seconds each) of every deck in inputs/, with walls, two components
# and ratio 4, at 1 and 2 ranks.
set(PW_INPUTS ${PROJECT_SOURCE_DIR}/inputs)

function(pw_fingerprint name expected)
  foreach(np 1 2)
    add_test(NAME fingerprint.${name}.np${np}
      COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect_fingerprint.sh ${expected}
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
              $<TARGET_FILE:patchwork> ${ARGN} output.write=false)
    set_tests_properties(fingerprint.${name}.np${np} PROPERTIES
      ENVIRONMENT "${PW_TEST_ENV}" PROCESSORS ${np} TIMEOUT 300)
  endforeach()
endfunction()

pw_fingerprint(bubble_2d 687515f17c5f5f5d ${PW_INPUTS}/bubble_2d.toml time.max_step=30)
pw_fingerprint(bubble_2d_walls 2dc6d1aadbc55992 ${PW_INPUTS}/bubble_2d.toml
  time.max_step=20 domain.periodic=[false,false] advection.velocity=rotation
  advection.ncomp=2)
pw_fingerprint(bubble_2d_ratio4 0ae18d57d512b0a5 ${PW_INPUTS}/bubble_2d.toml
  time.max_step=10 amr.max_level=1 amr.ref_ratio=4 advection.tag_threshold=[1.05])
pw_fingerprint(bubble_3d 13ee8ce91c8ca4e6 ${PW_INPUTS}/bubble_3d.toml time.max_step=8)
pw_fingerprint(bubble_3d_walls bd0aa71cb7335042 ${PW_INPUTS}/bubble_3d.toml
  time.max_step=6 domain.periodic=[false,true,false] advection.blob_3d=true)
pw_fingerprint(bench_advection_3d 9f314444b325545a ${PW_INPUTS}/bench_advection_3d.toml
  time.max_step=2)
