# `cmake --install build --prefix P`: the tine CLI, libtine (static, and shared with its
# SONAME), the public headers, the man page, a pkg-config file and a CMake package
# (find_package(tine CONFIG): tine::tine, tine::tine_static, tine::cli, tine_add_kernel).
# Included by the top-level CMakeLists.txt after every target it installs exists.
include(CMakePackageConfigHelpers)

set(TINE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tine)

install(TARGETS tine_shared EXPORT tine-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tine_static EXPORT tine-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tine EXPORT tine-targets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# tine.h and the one header it includes (the op table); the rest of include/ is internal
install(FILES include/tine.h include/tine_ops.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES docs/tine.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The CMake package. The libraries the static library needs (LLVM, z3, libclang: its
# TINE_CLANG_LIBRARY) are named by file in tineConfig.cmake (the locations this build
# linked), not by LLVM's CMake package: loading that package into a user's project would
# clash with any other LLVM the project uses.
get_target_property(tine_llvm_configs LLVM IMPORTED_CONFIGURATIONS)
list(GET tine_llvm_configs 0 tine_llvm_config)
get_target_property(TINE_LLVM_LIBRARY LLVM IMPORTED_LOCATION_${tine_llvm_config})
set(TINE_Z3_LIBRARY ${Z3_LIBRARY})
install(EXPORT tine-targets NAMESPACE tine:: DESTINATION ${TINE_CMAKE_DIR})
configure_package_config_file(cmake/tineConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tineConfig.cmake
                              INSTALL_DESTINATION ${TINE_CMAKE_DIR})
# 0.x: a new minor version may change the API, so only the same minor version matches
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tineConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tineConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tineConfigVersion.cmake
              cmake/tine_add_kernel.cmake
        DESTINATION ${TINE_CMAKE_DIR})

# pkg-config: the prefix is found from the file's own place (${pcfiledir}), so the file is
# right wherever `cmake --install --prefix` puts it; one ".." per component of the libdir.
string(REGEX REPLACE "[^/]+" ".." TINE_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
get_filename_component(TINE_LLVM_LIBDIR "${TINE_LLVM_LIBRARY}" DIRECTORY)
configure_file(cmake/tine.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tine.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tine.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
