# tine_add_kernel(NAME SOURCE file.tine [TARGETS target ...] [PARAMS arg ...])
#
# The kernel in file.tine compiled ahead of time, at build time, by tine::cli into a static
# library target NAME: one object holding the C function NAME, and the header NAME.h that
# declares it, on the include path of every target that links NAME. The object needs libc
# alone (and threads, for kernels with `parallel` loops: NAME links them).
#
#   TARGETS  the instruction sets to compile for ("x86-64-avx2", "arm-64", ...; default
#            "host", this machine's). Several are compiled into one object whose NAME
#            calls the first one the running CPU supports: `tine compile --target a,b,c`.
#   PARAMS   further arguments for `tine compile`, given as they are (`--select llvm`:
#            LLVM's own instruction selection instead of tine's).
#
# The commands, for a kernel blur: tine compile file.tine --target T --name blur
#   --emit obj -o blur.o (and --emit h -o blur.h), rerun when file.tine or tine changes.
function(tine_add_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOURCE" "TARGETS;PARAMS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tine_add_kernel(${name}): unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCE)
    message(FATAL_ERROR "tine_add_kernel(${name}): needs SOURCE file.tine")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "tine_add_kernel(${name}): the name is the C function's, so a C identifier")
  endif()
  if(NOT arg_TARGETS)
    set(arg_TARGETS host)
  endif()
  list(JOIN arg_TARGETS "," targets)
  get_filename_component(source "${arg_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "tine_add_kernel(${name}): no such file: ${source}")
  endif()

  # the header alone in its directory, so NAME's users see no other generated file
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.tine")
  file(MAKE_DIRECTORY "${dir}/include")
  set(obj "${dir}/${name}.o")
  set(header "${dir}/include/${name}.h")
  foreach(kind obj h)
    if(kind STREQUAL "obj")
      set(out "${obj}")
    else()
      set(out "${header}")
    endif()
    add_custom_command(
      OUTPUT "${out}"
      COMMAND tine::cli compile "${source}" --target "${targets}" --name ${name} --emit ${kind} -o "${out}"
              ${arg_PARAMS}
      DEPENDS "${source}" $<TARGET_FILE:tine::cli>
      COMMENT "tine: compiling ${arg_SOURCE} for ${targets} (${name}, ${kind})"
      VERBATIM)
  endforeach()

  add_library(${name} STATIC "${obj}" "${header}")
  # no sources to compile: the archive is made by the linker language enabled in the project
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  else()
    set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  target_include_directories(${name} INTERFACE "${dir}/include")
  target_link_libraries(${name} INTERFACE Threads::Threads)
endfunction()
