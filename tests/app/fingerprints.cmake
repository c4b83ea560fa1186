# Recorded answers: the decks' fingerprints as the code gave them before the level data
# refactor (the state became a LevelData, walls and interpolation declared per component
# by the physics module). A change that moves any bit of an advection run fails here.
# Short runs (a few seconds each) of every deck in inputs/, with walls, two components and
# ratio 4, as ranks x threads: 1x1 and 2x1, and 1x2 where Kokkos runs host threads (OpenMP
# or Threads), so one set of recorded numbers proves the answer the same across Kokkos
# builds, rank counts and thread counts. Each run's summary must show the threads it was
# given.
set(PW_INPUTS ${PROJECT_SOURCE_DIR}/inputs)
set(PW_FINGERPRINT_RUNS 1x1 2x1)
if(PW_HOST_THREADS)  # from tests/CMakeLists.txt, as PW_KOKKOS_SPACE
  list(INSERT PW_FINGERPRINT_RUNS 1 1x2)
endif()

# Each run's summary must also show the exchange buffers the build chose.
if(PATCHWORK_GPU_AWARE_MPI)
  set(PW_GPU_AWARE_MPI 1)
else()
  set(PW_GPU_AWARE_MPI 0)
endif()

function(pw_fingerprint name expected)
  foreach(run IN LISTS PW_FINGERPRINT_RUNS)
    string(REPLACE "x" ";" rt ${run})
    list(GET rt 0 np)
    list(GET rt 1 threads)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/fingerprint/${name}.${run})
    set(check -)
    if(NOT PW_KOKKOS_SPACE STREQUAL -)
      set(check ${PW_KOKKOS_SPACE}:${threads})
    endif()
    add_test(NAME fingerprint.${name}.${run}
      COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect_fingerprint.sh ${expected} ${check}
              ${dir}/plt_summary.json
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
              $<TARGET_FILE:patchwork> ${ARGN} output.write=false output.dir=${dir})
    math(EXPR processors "${np} * ${threads}")
    set(env ${PW_TEST_ENV_BASE} OMP_NUM_THREADS=${threads} KOKKOS_NUM_THREADS=${threads}
        PW_GPU_AWARE_MPI=${PW_GPU_AWARE_MPI})
    set_tests_properties(fingerprint.${name}.${run} PROPERTIES
      ENVIRONMENT "${env}"
      PROCESSORS ${processors} TIMEOUT 300)
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

# The Poisson workload, both solve modes, so that a Kokkos build or thread count that
# moves a bit of either solver fails here (level by level recorded when the composite
# solve was added; composite re-recorded when its cycle became MLMG's, refined levels
# smoothed rather than solved; level by level re-recorded when a refined level's grids
# and prolongation stopped depending on its patch cut, and when its coarser grids put the
# error's zero at its ghost centres, not at the face; composite of periodic problems
# re-recorded when covered cells were averaged down again after the mean's removal).
pw_fingerprint(poisson_2d_composite c9e8b7b9389df2f9 ${PW_INPUTS}/poisson_2d.toml
  time.max_step=3 poisson.solve=composite)
pw_fingerprint(poisson_2d_levels cb8301948da63849 ${PW_INPUTS}/poisson_2d.toml
  time.max_step=3 poisson.solve=levels)
# At 2 ranks the balancer splits patches that stay whole at 1 (the answer moved with the
# cut before, solved level by level, and composite at ratio 4, whose refined level's
# correction has a coarser grid: e84832d6... against e9505c4b..., and b4e0bf32...
# against 99f69a24...).
pw_fingerprint(poisson_2d_levels_split 41073ea8bae3bc94 ${PW_INPUTS}/poisson_2d.toml
  time.max_step=4 poisson.solve=levels amr.max_grid_size=128 balance.method=lan
  balance.lan.threshold=1.01)
pw_fingerprint(poisson_2d_composite_ratio4_split 5e69cc7dc6b478d7
  ${PW_INPUTS}/poisson_2d.toml time.max_step=2 poisson.solve=composite amr.ref_ratio=4
  amr.max_level=1 amr.max_grid_size=128 balance.method=lan balance.lan.threshold=1.01)
pw_fingerprint(clumps_poisson_3d 58382250ee2c2b00 ${PW_INPUTS}/clumps_poisson_3d.toml
  time.max_step=2)
pw_fingerprint(poisson_3d_composite 0f34523e7371c4e0 ${PW_INPUTS}/poisson_3d.toml
  time.max_step=2 poisson.solve=composite)
