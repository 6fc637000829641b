//===- WeightFileTest.cpp - Weight file writer and reader -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Support/WeightFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir::dsmp;

namespace {

TEST(WeightFile, AppendAlignsEveryTensor) {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  WeightFileWriter writer(os);
  EXPECT_EQ(writer.append({"abc", 3}), 0u);
  EXPECT_EQ(writer.append({"defgh", 5}), kWeightAlignment);
  EXPECT_EQ(writer.append({"x", 1}), 2 * kWeightAlignment);
  EXPECT_EQ(os.str().size(), 2 * kWeightAlignment + 1);
  EXPECT_EQ(os.str().substr(kWeightAlignment, 5), "defgh");
  EXPECT_EQ(os.str()[3], '\0') << "padding is zero bytes";
}

TEST(WeightFile, ReaderChecksRanges) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("dsmp-weights", "bin", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << "0123456789";
  }
  auto reader = WeightFileReader::open(path);
  ASSERT_TRUE(static_cast<bool>(reader)) << llvm::toString(reader.takeError());
  auto bytes = reader->read(2, 3);
  ASSERT_TRUE(static_cast<bool>(bytes));
  EXPECT_EQ(std::string(bytes->data(), bytes->size()), "234");
  EXPECT_TRUE(static_cast<bool>(reader->read(10, 0)));
  auto past = reader->read(8, 3);
  EXPECT_FALSE(static_cast<bool>(past));
  llvm::consumeError(past.takeError());
  auto overflow = reader->read(UINT64_MAX, 2);
  EXPECT_FALSE(static_cast<bool>(overflow));
  llvm::consumeError(overflow.takeError());
  llvm::sys::fs::remove(path);
}

TEST(WeightFile, MissingFileIsAnError) {
  auto reader = WeightFileReader::open("/nonexistent/dsmp/weights.bin");
  ASSERT_FALSE(static_cast<bool>(reader));
  EXPECT_NE(llvm::toString(reader.takeError()).find("cannot open"),
            std::string::npos);
}

TEST(WeightFile, NamesResolveBesideTheIR) {
  EXPECT_EQ(resolveWeightsPath("out/model.mlir", "model.mlir.weights"),
            "out/model.mlir.weights");
  EXPECT_EQ(resolveWeightsPath("model.mlir", "w.bin"), "w.bin");
  EXPECT_EQ(resolveWeightsPath("a/b.mlir", "/abs/w.bin"), "/abs/w.bin");
}

} // namespace
