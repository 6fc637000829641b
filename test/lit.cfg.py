# -*- Python -*-
"""lit configuration for dsmp's regression tests."""

import glob
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "DSMP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dsmp_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "unit", "lib", "Inputs", "regressions",
                   "targets"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.dsmp_tools_dir, append_path=True)

tools = ["dsmp-opt", "dsmp-translate", "dsmp-import-fuzzer", "dsmp-external-path-fuzzer",
         "dsmp-ir-fuzzer", "dsmp-manifest-fuzzer", "dsmp-tensor-fuzzer", "dsmp-artifact-fuzzer",
         "dsmp-format-convert", "dsmp-run",
         "dsmp-compile", "dsmprt-run", "dsmprt-train"]
llvm_config.add_tool_substitutions(tools, [config.dsmp_tools_dir])

config.substitutions.append(("%dsmp_python", config.python_executable))
config.substitutions.append(("%dsmp_bin", config.dsmp_tools_dir))
config.substitutions.append(("%dsmp_src", config.dsmp_src_root))

# The shared ONNX models live beside the checkout, never inside it.
models = os.path.normpath(os.path.join(config.dsmp_src_root, "..", "shared", "models"))
if os.path.isdir(models):
    config.available_features.add("shared-models")
config.substitutions.append(("%models", models))

# Debian's ONNX backend node tests.
node_tests = "/usr/share/libonnx-testdata/data/node"
for candidate in [node_tests]:
    if os.path.isdir(candidate):
        config.available_features.add("onnx-node-tests")
        config.substitutions.append(("%onnx_node_tests", candidate))
        break

# The runtime cross-built for AArch64, run under qemu-user.
import shutil
arm_runner = os.path.join(config.dsmp_obj_root, "aarch64", "bin", "dsmprt-run")
if config.have_aarch64 == "1" and os.path.exists(arm_runner) and shutil.which("qemu-aarch64"):
    config.available_features.add("aarch64-qemu")
config.substitutions.append(("%arm_runner", arm_runner))
config.substitutions.append(("%arm_trainer", os.path.join(config.dsmp_obj_root, "aarch64", "bin", "dsmprt-train")))

# The GPU toolkits the device code is made with: CUDA's ptxas and
# fatbinary, and LLVM's ld.lld in the ROCm-layout folder the build lays out.
config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit))
config.substitutions.append(("%rocm_toolkit", config.rocm_toolkit))
if os.access(os.path.join(config.cuda_toolkit, "bin", "ptxas"), os.X_OK) and \
        os.access(os.path.join(config.cuda_toolkit, "bin", "fatbinary"), os.X_OK):
    config.available_features.add("cuda-toolkit")
if os.access(os.path.join(config.rocm_toolkit, "llvm", "bin", "ld.lld"), os.X_OK):
    config.available_features.add("rocm-lld")
config.environment["DSMP_CUDA_TOOLKIT"] = config.cuda_toolkit

# mlir-runner's support libraries (printMemrefF32), beside LLVM's tools.
runner_libs = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%mlir_runner_libs", ",".join(
    os.path.join(runner_libs, f"lib{name}.so")
    for name in ("mlir_c_runner_utils", "mlir_runner_utils"))))

# The Python package, built into the build tree.
python_path = os.path.join(config.dsmp_obj_root, "python")
# A sanitized extension cannot load into the uninstrumented Python.
if glob.glob(os.path.join(python_path, "dsmp", "_dsmp*.so")) and \
        config.sanitizers not in ("ON", "1", "TRUE"):
    config.available_features.add("python-package")
config.substitutions.append(("%dsmp_pypath", python_path))

# The README's commands name build/bin: they run where the build is there.
if os.path.realpath(config.dsmp_tools_dir) == \
        os.path.realpath(os.path.join(config.dsmp_src_root, "build", "bin")):
    config.available_features.add("build-in-tree")

# torch and torchvision (CPU wheels will do) export the model zoo
# (scripts/make-zoo.py).
import subprocess
if subprocess.run([config.python_executable, "-c", "import torch, torchvision"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torch")

# HuggingFace transformers exports its own architectures for the zoo
# (scripts/make-zoo.py --hf).
if subprocess.run([config.python_executable, "-c", "import transformers"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("transformers")

# onnxscript: torch's dynamo exporter (make-zoo.py --dynamo).
if subprocess.run([config.python_executable, "-c", "import onnxscript"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("onnxscript")

# Headless Chromium opens the report page (test/Precision/report-page.test).
if shutil.which("chromium"):
    config.available_features.add("chromium")

# Opt-in long runs (the exhaustive 2^32 format check): DSMP_LONG_TESTS=1.
if os.environ.get("DSMP_LONG_TESTS") == "1":
    config.available_features.add("long-tests")

for target in config.llvm_targets.split(";"):
    config.available_features.add(target.lower())
if config.fuzzers in ("ON", "1", "TRUE"):
    config.available_features.add("fuzzer")
if config.sanitizers in ("ON", "1", "TRUE"):
    config.available_features.add("sanitizers")
    # LLVM's BumpPtrAllocator poisons memory from inline header code in our
    # instrumented objects, which the uninstrumented libMLIR.so then writes
    # legitimately: turn off user poisoning, keep every other check.
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
