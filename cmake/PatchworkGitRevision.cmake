# PATCHWORK_CODE_VERSION: "patchwork VERSION", and " (git REVISION)" when the sources are
# a git checkout of their own (git describe --always --dirty, taken at configure time).
# CMake configures again when HEAD moves (a commit, a checkout), so the revision follows
# the commits; edits made after the last configure do not add "-dirty" until then.
set(PATCHWORK_CODE_VERSION "patchwork ${PROJECT_VERSION}")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel --absolute-git-dir
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE pw_git_rc
    OUTPUT_VARIABLE pw_git_dirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(pw_git_rc EQUAL 0)
    string(REPLACE "\n" ";" pw_git_dirs "${pw_git_dirs}")
    list(GET pw_git_dirs 0 pw_git_top)
    list(GET pw_git_dirs 1 pw_git_dir)
    file(REAL_PATH "${pw_git_top}" pw_git_top)
    file(REAL_PATH "${PROJECT_SOURCE_DIR}" pw_source_dir)
  endif()
  # Only the project's own repository: not one the sources happen to be unpacked in.
  if(pw_git_rc EQUAL 0 AND pw_git_top STREQUAL pw_source_dir)
    execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE pw_git_rc
      OUTPUT_VARIABLE pw_git_revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(pw_git_rc EQUAL 0 AND pw_git_revision MATCHES "^[A-Za-z0-9._+-]+$")
      string(APPEND PATCHWORK_CODE_VERSION " (git ${pw_git_revision})")
    endif()
    foreach(f HEAD logs/HEAD)
      if(EXISTS "${pw_git_dir}/${f}")
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY
          CMAKE_CONFIGURE_DEPENDS "${pw_git_dir}/${f}")
      endif()
    endforeach()
  endif()
endif()
message(STATUS "Code version: ${PATCHWORK_CODE_VERSION}")
