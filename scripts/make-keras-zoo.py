"""Export Keras models with tf2onnx, as TensorFlow users hand dsmp theirs.

    python make-keras-zoo.py OUT [--only NAME ...] [--opset N]

Keras applications (MobileNet V1-V3, DenseNet, NASNet, Xception, Inception
V3 and ResNet-v2, ResNet50, VGG16) and small text/audio/segmentation models
(Keras LSTM, GRU, SimpleRNN, ConvLSTM2D and Bidirectional layers, masked
ones with zero-padded token ids or frames, MultiHeadAttention, Attention
and AdditiveAttention, Conv1D, Conv2DTranspose, a CRNN, GroupNormalization
and preprocessing layers), random weights with BatchNorm statistics re-estimated,
exported by tf2onnx at opsets 13 and 17 alternately, in the zoo's layout:
OUT/<name>/model.onnx, test_data_set_0 (batch 2) and test_data_set_1
(batch 1), each output TF's, checked against onnxruntime (3e-4). tf2onnx
writes NHWC Transposes, Pads before convolutions, and Keras GRU as an ONNX
Loop. TensorFlow pins its own numpy and protobuf, so run it from a venv of
its own:

    python3 -m venv /tmp/tfenv
    /tmp/tfenv/bin/pip install tensorflow-cpu==2.19.1 tf2onnx==1.17.0 onnx onnxruntime
    /tmp/tfenv/bin/python scripts/make-keras-zoo.py OUT

then `test/Precision/shared_models.py --models OUT --strict` with .venv.
EfficientNet, EfficientNetV2 and ConvNeXt do not export with tf2onnx 1.17
(its converter's own errors) and are left out.
"""
import os, sys, argparse
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
import keras
import tf2onnx, onnx, onnxruntime as ort
from onnx import numpy_helper

A = keras.applications
L = keras.layers

def lstm_text():
    i = keras.Input((20,), dtype="int32")
    x = L.Embedding(3000, 64)(i)
    x = L.LSTM(64, return_sequences=True)(x)
    x = L.GRU(32)(x)
    return keras.Model(i, L.Dense(5)(x))

def bilstm_text():
    i = keras.Input((20,), dtype="int32")
    x = L.Embedding(3000, 48)(i)
    x = L.Bidirectional(L.LSTM(32))(x)
    return keras.Model(i, L.Dense(4)(x))

def masked_bilstm_text():
    # mask_zero: tf2onnx writes the backward layers' reversal of each
    # sequence's own length as ReverseSequence.
    i = keras.Input((20,), dtype="int32")
    x = L.Embedding(3000, 32, mask_zero=True)(i)
    x = L.Bidirectional(L.LSTM(24, return_sequences=True))(x)
    x = L.Bidirectional(L.GRU(16))(x)
    return keras.Model(i, L.Dense(5)(x))

def crnn_ocr():
    # A text-line recognizer: convolutions, the width as the sequence, a
    # Bidirectional GRU, per-column class scores (CTC's input).
    i = keras.Input((32, 96, 1))
    x = i
    for f in (16, 32):
        x = L.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = L.MaxPooling2D(2)(x)
    x = L.Permute((2, 1, 3))(x)
    x = L.Reshape((24, 8 * 32))(x)
    x = L.Bidirectional(L.GRU(32, return_sequences=True))(x)
    return keras.Model(i, L.Dense(40, activation="softmax")(x))

def masked_speech():
    # Zero-padded feature frames under a Masking layer, stacked LSTMs.
    i = keras.Input((50, 20))
    x = L.Masking(0.0)(i)
    x = L.LSTM(32, return_sequences=True)(x)
    x = L.LSTM(16)(x)
    return keras.Model(i, L.Dense(6)(x))

def conv_lstm():
    i = keras.Input((6, 16, 16, 2))
    x = L.ConvLSTM2D(8, 3, padding="same")(i)
    x = L.GlobalAveragePooling2D()(x)
    return keras.Model(i, L.Dense(3)(x))

def attention_text():
    # Keras' dot-product and additive attention over a BiLSTM.
    i = keras.Input((16,), dtype="int32")
    h = L.Bidirectional(L.LSTM(16, return_sequences=True))(L.Embedding(3000, 32)(i))
    a = L.Attention()([h, h])
    b = L.AdditiveAttention()([h, a])
    x = L.GlobalMaxPooling1D()(L.Concatenate()([a, b]))
    return keras.Model(i, L.Dense(4)(x))

def simple_rnn():
    i = keras.Input((30, 8))
    x = L.SimpleRNN(24, return_sequences=True)(i)
    x = L.SimpleRNN(12)(x)
    return keras.Model(i, L.Dense(2)(x))

def text_cnn():
    # Kim's sentence CNN: three kernel widths, max over time.
    i = keras.Input((40,), dtype="int32")
    e = L.Embedding(3000, 48)(i)
    xs = [L.GlobalMaxPooling1D()(L.Conv1D(32, k, activation="relu")(e)) for k in (3, 4, 5)]
    x = L.Dropout(0.5)(L.Concatenate()(xs))
    return keras.Model(i, L.Dense(2)(x))

def group_norm_cnn():
    # Preprocessing layers in the model (Rescaling, Resizing), GroupNorm.
    i = keras.Input((32, 32, 3))
    x = L.Rescaling(1 / 127.5, offset=-1)(i)
    x = L.Resizing(24, 24)(x)
    for f in (16, 32):
        x = L.Conv2D(f, 3, padding="same")(x)
        x = L.GroupNormalization(4)(x)
        x = L.Activation("swish")(x)
        x = L.AveragePooling2D(2)(x)
    x = L.LayerNormalization()(L.Flatten()(x))
    return keras.Model(i, L.Dense(10)(x))

def masked_backward_gru():
    i = keras.Input((25,), dtype="int32")
    x = L.Embedding(3000, 16, mask_zero=True)(i)
    x = L.GRU(24, return_sequences=True, go_backwards=True)(x)
    x = L.GlobalAveragePooling1D()(x)
    return keras.Model(i, L.Dense(3)(x))

def transformer_text():
    i = keras.Input((24,), dtype="int32")
    x = L.Embedding(4000, 64)(i)
    for _ in range(2):
        h = L.LayerNormalization()(x)
        h = L.MultiHeadAttention(4, 16)(h, h)
        x = x + h
        h = L.LayerNormalization()(x)
        h = L.Dense(128, activation=lambda t: keras.activations.gelu(t, approximate=True))(h)
        x = x + L.Dense(64)(h)
    x = L.GlobalAveragePooling1D()(x)
    return keras.Model(i, L.Dense(3)(x))

def conv1d_audio():
    i = keras.Input((1600, 1))
    x = i
    for f in (16, 32, 64):
        x = L.Conv1D(f, 9, strides=2, padding="same")(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
        x = L.MaxPooling1D(2)(x)
    x = L.GlobalAveragePooling1D()(x)
    return keras.Model(i, L.Dense(12)(x))

def unet_small():
    i = keras.Input((64, 64, 3))
    c1 = L.Conv2D(16, 3, padding="same", activation="relu")(i)
    p1 = L.MaxPooling2D()(c1)
    c2 = L.Conv2D(32, 3, padding="same", activation="relu")(p1)
    p2 = L.MaxPooling2D()(c2)
    b = L.Conv2D(64, 3, padding="same", activation="relu")(p2)
    u2 = L.Conv2DTranspose(32, 2, strides=2)(b)
    c3 = L.Conv2D(32, 3, padding="same", activation="relu")(L.Concatenate()([u2, c2]))
    u1 = L.UpSampling2D(interpolation="bilinear")(c3)
    c4 = L.Conv2D(16, 3, padding="same", activation="relu")(L.Concatenate()([u1, c1]))
    return keras.Model(i, L.Conv2D(2, 1)(c4))

def app(fn, size, **kw):
    return (lambda: fn(weights=None, input_shape=(size, size, 3), classifier_activation=None, **kw)), (size, size, 3), "float"

ZOO = {
    "k_mobilenet": app(A.MobileNet, 128),
    "k_mobilenet_v2": app(A.MobileNetV2, 128),
    "k_mobilenet_v3_small": app(A.MobileNetV3Small, 128),
    "k_mobilenet_v3_large": app(A.MobileNetV3Large, 128),
    "k_densenet121": app(A.DenseNet121, 96),
    "k_nasnet_mobile": app(A.NASNetMobile, 96),
    "k_xception": app(A.Xception, 96),
    "k_inception_v3": app(A.InceptionV3, 96),
    "k_inception_resnet_v2": app(A.InceptionResNetV2, 96),
    "k_resnet50": app(A.ResNet50, 96),
    "k_resnet50_v2": app(A.ResNet50V2, 96),
    "k_vgg16": app(A.VGG16, 64),
    "k_lstm_text": (lstm_text, (20,), "int"),
    "k_bilstm_text": (bilstm_text, (20,), "int"),
    "k_masked_bilstm_text": (masked_bilstm_text, (20,), "padded"),
    "k_transformer_text": (transformer_text, (24,), "int"),
    "k_crnn_ocr": (crnn_ocr, (32, 96, 1), "float"),
    "k_masked_speech": (masked_speech, (50, 20), "padded_float"),
    "k_conv_lstm": (conv_lstm, (6, 16, 16, 2), "float"),
    "k_attention_text": (attention_text, (16,), "int"),
    "k_simple_rnn": (simple_rnn, (30, 8), "float"),
    "k_text_cnn": (text_cnn, (40,), "int"),
    "k_group_norm_cnn": (group_norm_cnn, (32, 32, 3), "pixels"),
    "k_masked_backward_gru": (masked_backward_gru, (25,), "padded"),
    "k_conv1d_audio": (conv1d_audio, (1600, 1), "float"),
    "k_unet_small": (unet_small, (64, 64, 3), "float"),
}

def make_input(shape, kind, batch, rng):
    if kind == "int":
        return rng.integers(0, 3000, size=(batch,) + shape).astype(np.int32)
    if kind == "padded":  # token ids, each row zero-padded after 5 to 20
        x = rng.integers(1, 3000, size=(batch,) + shape).astype(np.int32)
        for row in x:
            row[rng.integers(5, shape[0] + 1):] = 0
        return x
    if kind == "pixels":
        return rng.uniform(0, 255, (batch,) + shape).astype(np.float32)
    x = rng.standard_normal((batch,) + shape).astype(np.float32)
    if kind == "padded_float":  # frames zero-padded after 10 to 50
        for row in x:
            row[rng.integers(10, shape[0] + 1):] = 0
    return x

def reestimate_bn(model, shape, kind, rng):
    bns = [l for l in model._flatten_layers() if isinstance(l, L.BatchNormalization)]
    if not bns:
        return
    for l in bns:
        l.momentum = 0.0
    model(make_input(shape, kind, 16, rng), training=True)

def write_set(folder, names, arrays, prefix):
    os.makedirs(folder, exist_ok=True)
    for i, (n, a) in enumerate(zip(names, arrays)):
        with open(os.path.join(folder, f"{prefix}_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(a), n).SerializeToString())

def export(name, out, opset):
    build, shape, kind = ZOO[name]
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(1)
    model = build()
    reestimate_bn(model, shape, kind, rng)
    dtype = tf.int32 if kind in ("int", "padded") else tf.float32
    spec = (tf.TensorSpec((None,) + shape, dtype, name="input"),)
    fn = tf.function(lambda x: model(x, training=False))
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    tf2onnx.convert.from_function(fn, input_signature=spec, opset=opset, output_path=path)
    m = onnx.load(path)
    onnx.checker.check_model(m)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    iname = sess.get_inputs()[0].name
    onames = [o.name for o in sess.get_outputs()]
    for i, batch in enumerate((2, 1)):
        x = make_input(shape, kind, batch, rng)
        want = fn(tf.constant(x)).numpy()
        got = sess.run(None, {iname: x})[0]
        err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
        if err > 3e-4:
            raise RuntimeError(f"{name}: onnxruntime differs from TF on set {i}: {err:.2e}")
        d = os.path.join(folder, f"test_data_set_{i}")
        write_set(d, [iname], [x], "input")
        write_set(d, onames[:1], [want], "output")
    ops = sorted({n.op_type for n in m.graph.node})
    print(f"{name:24} opset {opset} {model.count_params()/1e6:6.2f} M params {len(m.graph.node):5} nodes  {' '.join(ops)}", flush=True)

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("out"); p.add_argument("--only", nargs="*"); p.add_argument("--opset", type=int, default=0)
    a = p.parse_args()
    for k, name in enumerate(a.only or list(ZOO)):
        try:
            export(name, a.out, a.opset or (13 if k % 2 == 0 else 17))
        except Exception as e:
            print(f"{name}: FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
