#!/usr/bin/env python3
"""Writes the digits data the train_digits examples read, as ONNX tensors.

The test set is the 450 digits of ../shared/models/digits_cnn/test_data_set_0
(labels: test_labels.npy); the training set is the other 1347 of
scikit-learn's 1797 8x8 digits, found by matching pixels (scaled to [0, 1]
as the shared model's inputs are).

    make_data.py SHARED_MODELS_DIR OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from sklearn.datasets import load_digits


def split(shared):
    """((train images, labels), (test images, labels)) as float32 [N, 1, 8, 8]
    and int64 [N]; exits when the shared test digits do not match."""
    model_dir = os.path.join(shared, "digits_cnn")
    test = numpy_helper.to_array(onnx.load_tensor(
        os.path.join(model_dir, "test_data_set_0", "input_0.pb")))
    test_labels = np.load(os.path.join(model_dir, "test_labels.npy"))
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    index = {image.tobytes(): i for i, image in enumerate(images)}
    test_rows = [index.get(t.tobytes()) for t in test]
    if None in test_rows or len(set(test_rows)) != len(test):
        sys.exit("make_data.py: the test digits do not all match scikit-learn's")
    if not np.array_equal(digits.target[test_rows], test_labels):
        sys.exit("make_data.py: test_labels.npy disagrees with scikit-learn")
    train_rows = sorted(set(range(len(images))) - set(test_rows))
    return ((images[train_rows], digits.target[train_rows].astype(np.int64)),
            (test.astype(np.float32), test_labels.astype(np.int64)))


def main():
    shared, out = sys.argv[1], sys.argv[2]
    (train_x, train_y), (test_x, test_y) = split(shared)
    os.makedirs(out, exist_ok=True)
    tensors = {"train_images": train_x, "train_labels": train_y,
               "test_images": test_x, "test_labels": test_y}
    for name, array in tensors.items():
        tensor = numpy_helper.from_array(array, name)
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    print(f"{len(train_y)} training and {len(test_y)} test digits in {out}")


if __name__ == "__main__":
    main()
