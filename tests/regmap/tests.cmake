# The register-map tables in Documentation/regmaps/ are generated from
# fpga/regmap/*.toml; this test fails when one is stale or missing.
add_test(NAME regmap.docs_in_sync COMMAND ${CMAKE_SOURCE_DIR}/tests/regmap/check-docs ${CMAKE_SOURCE_DIR})
set_tests_properties(regmap.docs_in_sync PROPERTIES LABELS unit)
