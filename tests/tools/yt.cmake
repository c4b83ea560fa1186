# yt opens 2D and 3D dumps (advection, hydro, hydro with gravity, one with [units]) made by
# the executable, with the units and code version they record (and their .xmf files are
# sound):
# two runs on 2 ranks write the dumps into the test's directory, then
# tests/tools/test_yt_open.py checks them. Skipped (code 77, with the reason) when the
# Python found has no yt or h5py. Debian's python3-yt lives with /usr/bin/python3, so that
# one is preferred to a python3 earlier in PATH.
find_program(PW_PYTHON3 NAMES python3 HINTS /usr/bin)
set(PW_YT_DIR ${CMAKE_CURRENT_BINARY_DIR}/yt)
file(MAKE_DIRECTORY ${PW_YT_DIR})

function(pw_yt_dump name deck)
  add_test(NAME yt.dump_${name}
    COMMAND ${CMAKE_COMMAND} -E env ${PW_TEST_ENV}
            ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${PW_MPIEXEC_PREFLAGS}
            $<TARGET_FILE:patchwork> ${PROJECT_SOURCE_DIR}/inputs/${deck}
            output.write=true output.dir=${name} ${ARGN}
    WORKING_DIRECTORY ${PW_YT_DIR})
  set_tests_properties(yt.dump_${name} PROPERTIES FIXTURES_SETUP yt_dumps PROCESSORS 2
    TIMEOUT 300)
endfunction()

pw_yt_dump(2d bubble_2d.toml time.max_step=4)
pw_yt_dump(3d bubble_3d.toml time.max_step=2)
pw_yt_dump(hydro blast_2d.toml time.max_step=4 domain.n_cell=[64,64])
# Code units in cgs (a parsec, a million years, a solar mass): yt must report these; and
# a domain away from the origin, where yt must place it.
pw_yt_dump(units bubble_2d.toml time.max_step=4 units.length=3.0857e18 units.time=3.15576e13
  units.mass=1.989e33 domain.prob_lo=[-0.25,0.125] domain.prob_hi=[0.75,1.125])
pw_yt_dump(gravity clumps_3d.toml time.max_step=2 domain.n_cell=[16,16,16]
  amr.blocking_factor=4 amr.max_grid_size=8 amr.max_level=1)

add_test(NAME yt.open_2d_3d
  COMMAND ${PW_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_yt_open.py
          2d/plt_00004.h5 3d/plt_00002.h5 hydro/plt_00004.h5 gravity/plt_00002.h5
          units/plt_00004.h5
  WORKING_DIRECTORY ${PW_YT_DIR})
set_tests_properties(yt.open_2d_3d PROPERTIES FIXTURES_REQUIRED yt_dumps
  ENVIRONMENT "${PW_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS tools)

# ParaView (pvbatch) opens the same dumps' .xmf files; skipped when ParaView is missing.
find_program(PW_PVBATCH NAMES pvbatch)
if(PW_PVBATCH)
  set(PW_PARAVIEW_COMMAND ${PW_PVBATCH})
else()
  set(PW_PARAVIEW_COMMAND ${PW_PYTHON3})  # prints why and exits 77
endif()
add_test(NAME paraview.open_2d_3d
  COMMAND ${PW_PARAVIEW_COMMAND} ${CMAKE_CURRENT_LIST_DIR}/test_paraview_open.py
          2d/plt_00004.h5 3d/plt_00002.h5
  WORKING_DIRECTORY ${PW_YT_DIR})
set_tests_properties(paraview.open_2d_3d PROPERTIES FIXTURES_REQUIRED yt_dumps
  ENVIRONMENT "${PW_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS tools)

# ParaView's filters leave out the cells under finer levels: Integrate Variables equals
# each field's total in the run summary (2D, 2D hydro, 3D), and a slice through the 3D
# dump's refined patches integrates to the valid cells on it.
add_test(NAME paraview.integrals_2d_3d
  COMMAND ${PW_PARAVIEW_COMMAND} ${CMAKE_CURRENT_LIST_DIR}/test_paraview_integrals.py
          2d/plt_00004.h5 hydro/plt_00004.h5 3d/plt_00002.h5 0.53
  WORKING_DIRECTORY ${PW_YT_DIR})
set_tests_properties(paraview.integrals_2d_3d PROPERTIES FIXTURES_REQUIRED yt_dumps
  ENVIRONMENT "${PW_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS tools)
