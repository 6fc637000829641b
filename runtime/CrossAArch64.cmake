# The runtime and its runner cross-built for AArch64 Linux with clang and
# lld, against Debian's cross C/C++ libraries (g++-aarch64-linux-gnu). The
# tests run them under `qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max`.
# Skipped, with a message, where the cross libraries are missing.
set(DSMP_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH
    "Debian's AArch64 cross libraries")
find_program(DSMP_CLANGXX clang++ HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
file(GLOB _dsmp_cross_libstdcxx
     /usr/lib/gcc-cross/aarch64-linux-gnu/*/libstdc++.so)
if(DSMP_CLANGXX AND _dsmp_cross_libstdcxx
   AND EXISTS ${DSMP_AARCH64_SYSROOT}/lib/libc.so.6)
  set(DSMP_AARCH64_RUNNER ${CMAKE_BINARY_DIR}/aarch64/bin/dsmprt-run)
  add_custom_command(
    OUTPUT ${DSMP_AARCH64_RUNNER}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/aarch64/bin
    COMMAND ${DSMP_CLANGXX} --target=aarch64-linux-gnu -fuse-ld=lld -O2
            -std=c++17 -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include
            -I${PROJECT_SOURCE_DIR}
            ${DSMPRT_SOURCES} ${DSMPRT_RUN_SOURCES} -ldl
            -o ${DSMP_AARCH64_RUNNER}
    DEPENDS ${DSMPRT_SOURCES} ${DSMPRT_RUN_SOURCES}
            ${PROJECT_SOURCE_DIR}/include/dsmp/runtime/dsmprt.h
            ${PROJECT_BINARY_DIR}/include/dsmp/runtime/dsmprt_version.h
            ${PROJECT_SOURCE_DIR}/include/dsmp/runtime/Manifest.h
            ${PROJECT_SOURCE_DIR}/include/dsmp/runtime/GpuLaunchApi.h
            ${PROJECT_SOURCE_DIR}/runtime/lib/gpu/DeviceBackend.h
            ${PROJECT_SOURCE_DIR}/include/dsmp/runtime/TensorFile.h
            ${PROJECT_SOURCE_DIR}/runtime/tools/RunArtifact.h
    COMMENT "Cross-building dsmprt-run for AArch64")
  add_custom_target(dsmprt-run-aarch64 ALL DEPENDS ${DSMP_AARCH64_RUNNER})
  set(DSMP_AARCH64_TRAINER ${CMAKE_BINARY_DIR}/aarch64/bin/dsmprt-train)
  file(GLOB _dsmp_runtime_headers ${PROJECT_SOURCE_DIR}/include/dsmp/runtime/*.h)
  add_custom_command(
    OUTPUT ${DSMP_AARCH64_TRAINER}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/aarch64/bin
    COMMAND ${DSMP_CLANGXX} --target=aarch64-linux-gnu -fuse-ld=lld -O2
            -std=c++17 -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include
            -I${PROJECT_SOURCE_DIR}
            ${DSMPRT_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/tools/dsmprt-train.cpp -ldl
            -o ${DSMP_AARCH64_TRAINER}
    DEPENDS ${DSMPRT_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/tools/dsmprt-train.cpp
            ${_dsmp_runtime_headers}
            ${PROJECT_BINARY_DIR}/include/dsmp/runtime/dsmprt_version.h
            ${PROJECT_SOURCE_DIR}/runtime/lib/gpu/DeviceBackend.h
    COMMENT "Cross-building dsmprt-train for AArch64")
  add_custom_target(dsmprt-train-aarch64 ALL DEPENDS ${DSMP_AARCH64_TRAINER})
  set(DSMP_HAVE_AARCH64 1 CACHE INTERNAL "")
else()
  message(STATUS "dsmp: no AArch64 cross libraries; the AArch64 runtime and "
                 "its tests are skipped (scripts/setup.sh installs them)")
  set(DSMP_HAVE_AARCH64 0 CACHE INTERNAL "")
endif()
