# libpioc's components: one OBJECT library per folder of lib/, each with its
# own view of the private headers.
#
#   pioc_component(NAME [DEPENDS comp...] [EXTERNAL target...])
#
# makes pioc_NAME. Its sources include the public headers (include/, the
# generated register maps) and, of lib/, only "NAME/..." and "DEP/..." for each
# DEP in DEPENDS: the include path holds a directory of links to exactly those
# folders (build/private-view/NAME/), so a component that includes the private
# header of one it does not depend on fails to compile. EXTERNAL libraries are
# PRIVATE to the component. libpioc (shared and static) is the union of all
# components' objects (PIOC_COMPONENTS).
set(PIOC_VIEWS ${CMAKE_BINARY_DIR}/private-view)

# The directory of links to lib/NAME and lib/DEP... (the private headers a
# target may include), in OUT.
function(pioc_private_view out name)
  set(view ${PIOC_VIEWS}/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view})
  foreach(dir ${name} ${ARGN})
    if(NOT IS_DIRECTORY ${CMAKE_SOURCE_DIR}/lib/${dir})
      message(FATAL_ERROR "private view of ${name}: lib/${dir} does not exist")
    endif()
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/lib/${dir} ${view}/${dir} SYMBOLIC)
  endforeach()
  set(${out} ${view} PARENT_SCOPE)
endfunction()

function(pioc_component name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPENDS;EXTERNAL")
  pioc_private_view(view ${name} ${arg_DEPENDS})
  add_library(pioc_${name} OBJECT)
  add_dependencies(pioc_${name} pioc_regmaps)
  target_include_directories(pioc_${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PIOC_GEN}>
    PRIVATE ${view})
  # fmt and nlohmann-json appear in public headers (error text of the
  # coherent templates, the benchmark report), so every component sees them.
  target_link_libraries(pioc_${name} PUBLIC fmt::fmt nlohmann_json::nlohmann_json Threads::Threads
    PRIVATE ${arg_EXTERNAL})
  set_property(GLOBAL APPEND PROPERTY PIOC_COMPONENTS pioc_${name})
endfunction()
