# Installation: shared + static library, public headers (hand-written and
# generated), the UAPI header, pkg-config file and CMake package.
include(CMakePackageConfigHelpers)

install(TARGETS pioc pioc_static EXPORT pioc-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/pioc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PIOC_GEN}/pioc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(EXISTS ${CMAKE_SOURCE_DIR}/include/uapi)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/uapi DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pioc)
endif()

install(EXPORT pioc-targets NAMESPACE pioc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pioc)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/pioc-config.cmake.in
  ${CMAKE_BINARY_DIR}/pioc-config.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pioc)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/pioc-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/pioc-config.cmake ${CMAKE_BINARY_DIR}/pioc-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pioc)

# pioc.pc finds its prefix from where it lies (${pcfiledir}), so it stays right
# for `cmake --install --prefix ...` and DESTDIR staging, whatever prefix was
# configured.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(PIOC_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  string(REGEX REPLACE "[^/]+" ".." PIOC_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  set(PIOC_PC_PREFIX "\${pcfiledir}/${PIOC_PC_UP}")
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/pioc.pc.in ${CMAKE_BINARY_DIR}/pioc.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/pioc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
