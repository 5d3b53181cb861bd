# vfio-user server: message parsing and errors, config space, DMA mapping,
# and a socketpair conversation with the served model (no QEMU).
file(GLOB VFIO_USER_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
add_executable(test_vfio_user ${VFIO_USER_TEST_SOURCES} ${CMAKE_SOURCE_DIR}/tools/pioc-devd/served_device.cpp)
target_include_directories(test_vfio_user PRIVATE ${CMAKE_SOURCE_DIR}/lib ${CMAKE_SOURCE_DIR}/tools)
target_link_libraries(test_vfio_user PRIVATE pioc_vfio_user pioc_catch_main)
if(CMAKE_CROSSCOMPILING)
  add_test(NAME unit.vfio_user COMMAND test_vfio_user "~[native]")
else()
  add_test(NAME unit.vfio_user COMMAND test_vfio_user)
endif()
set_tests_properties(unit.vfio_user PROPERTIES TIMEOUT 120 LABELS unit)
