"""The architectures of dsmp's own model zoo (scripts/make-zoo.py).

Each entry builds a torch module with random weights and says how to feed
it: an input maker per set (set 0 and set 1 differ in batch, and the
sequence models in length), the dynamic axes and the opset it is exported
at. Sizes are small (inputs of 32-64 pixels, widths of 32-64) so that the
whole zoo compiles in minutes on two cores; the op mix is what matters.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm
import torchvision.models.segmentation as seg
import torchvision.models.video as video
from torchvision.models.convnext import CNBlockConfig, ConvNeXt


def images(size, channels=3):
    def make(batch, gen, which=0):
        return (torch.randn(batch, channels, size, size, generator=gen),)
    return make


def tokens(vocab, lengths=(16, 20)):
    def make(batch, gen, which=0):
        return (torch.randint(0, vocab, (batch, lengths[which]), generator=gen),)
    return make


def audio(length):
    def make(batch, gen, which=0):
        return (torch.randn(batch, 1, length + 800 * which, generator=gen),)
    return make


# --- sequence and audio models the zoo builds itself -------------------------

class SelfAttention(nn.Module):
    """Multi-head self-attention with explicit reshapes (the TorchScript
    exporter bakes nn.MultiheadAttention's shapes in as constants)."""

    def __init__(self, dim, heads, causal=False):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        if self.causal:
            # The causal mask from triu: ONNX Trilu at opset 14 and later.
            mask = torch.triu(torch.ones(s, s, dtype=torch.bool, device=x.device), diagonal=1)
            scores = scores.masked_fill(mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(b, s, d))


class EncoderLayer(nn.Module):
    """BERT's post-LN layer: attention, then a GELU feed-forward."""

    def __init__(self, dim, heads):
        super().__init__()
        self.attn = SelfAttention(dim, heads)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff(x))


class EncoderClassifier(nn.Module):
    """DistilBERT-like: word + position embeddings, post-LN encoder layers
    (exact GELU), the first token's state into a classifier."""

    def __init__(self, vocab=1000, dim=64, heads=4, layers=2, classes=4):
        super().__init__()
        self.word = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(64, dim)
        self.norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList(EncoderLayer(dim, heads) for _ in range(layers))
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        h = self.norm(self.word(ids) + self.pos(positions))
        for layer in self.layers:
            h = layer(h)
        return self.head(h[:, 0])


class DecoderBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, causal=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPTLike(nn.Module):
    """GPT-2-like: pre-LN decoder blocks with a causal mask, tanh GELU, an
    LM head tied to the token embedding."""

    def __init__(self, vocab=512, dim=64, heads=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(64, dim)
        self.blocks = nn.ModuleList(DecoderBlock(dim, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.tok(ids) + self.pos(positions)
        for block in self.blocks:
            x = block(x)
        return self.ln(x) @ self.tok.weight.t()


class T5LikeEncoder(nn.Module):
    """T5-style: RMS norm, no position embedding, a learned bias per
    relative-position bucket (Range, Log, Where, Min) added to the scores."""

    def __init__(self, vocab=512, dim=64, heads=4, layers=2, buckets=16, max_distance=64):
        super().__init__()
        self.heads, self.buckets, self.max_distance = heads, buckets, max_distance
        self.embed = nn.Embedding(vocab, dim)
        self.bias = nn.Embedding(buckets, heads)
        self.qkv = nn.ModuleList(nn.Linear(dim, 3 * dim, bias=False) for _ in range(layers))
        self.out = nn.ModuleList(nn.Linear(dim, dim, bias=False) for _ in range(layers))
        self.ff = nn.ModuleList(nn.Sequential(nn.Linear(dim, 2 * dim, bias=False), nn.ReLU(),
                                              nn.Linear(2 * dim, dim, bias=False))
                                for _ in range(layers))
        self.scale1 = nn.ParameterList(nn.Parameter(torch.ones(dim)) for _ in range(layers))
        self.scale2 = nn.ParameterList(nn.Parameter(torch.ones(dim)) for _ in range(layers))
        self.head = nn.Linear(dim, 8)

    @staticmethod
    def rms(x, scale):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * scale

    def bucket(self, relative):
        half = self.buckets // 2
        out = (relative > 0).to(torch.long) * half
        n = relative.abs()
        exact = half // 2
        large = exact + (torch.log(n.float() / exact + 1e-6) / math.log(self.max_distance / exact)
                         * (half - exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, half - 1))
        return out + torch.where(n < exact, n, large)

    def forward(self, ids):
        b, s = ids.shape
        pos = torch.arange(s, device=ids.device)
        bias = self.bias(self.bucket(pos[None, :] - pos[:, None])).permute(2, 0, 1)
        x = self.embed(ids)
        d = x.shape[-1]
        for qkv, out, ff, s1, s2 in zip(self.qkv, self.out, self.ff, self.scale1, self.scale2):
            q, k, v = qkv(self.rms(x, s1)).split(d, dim=-1)
            q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
                       for t in (q, k, v))
            att = torch.softmax(q @ k.transpose(-2, -1) + bias, dim=-1) @ v
            x = x + out(att.transpose(1, 2).reshape(b, s, d))
            x = x + ff(self.rms(x, s2))
        return self.head(x.mean(1))


class RecurrentClassifier(nn.Module):
    """Embedding, a bidirectional GRU, the last step into a classifier."""

    def __init__(self, vocab=1000, dim=48, hidden=64, classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return self.head(out[:, -1])


class LSTMLanguageModel(nn.Module):
    """Embedding, two LSTM layers, a softmax over the vocabulary per step."""

    def __init__(self, vocab=400, dim=48, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return torch.log_softmax(self.head(out), dim=-1)


class AudioCNN(nn.Module):
    """M5-like raw-waveform classifier: strided Conv1d, BatchNorm, MaxPool,
    global average."""

    def __init__(self, classes=10, width=32):
        super().__init__()
        layers, channels = [], 1
        for i, (k, s) in enumerate([(80, 4), (3, 1), (3, 1), (3, 1)]):
            out = width * (2 if i >= 2 else 1)
            layers += [nn.Conv1d(channels, out, k, stride=s), nn.BatchNorm1d(out), nn.ReLU(),
                       nn.MaxPool1d(4)]
            channels = out
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        return self.head(self.features(x).mean(-1))


class ConformerLike(nn.Module):
    """Conv subsampling, then a conformer block: macaron feed-forwards,
    self-attention, a convolution module with GLU (Split at opset 13+)."""

    def __init__(self, mels=40, dim=64, heads=4, classes=30):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv1d(mels, dim, 3, stride=2), nn.SiLU())
        self.ff1 = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.SiLU(),
                                 nn.Linear(2 * dim, dim))
        self.ln_att = nn.LayerNorm(dim)
        self.att = SelfAttention(dim, heads)
        self.ln_conv = nn.LayerNorm(dim)
        self.pointwise = nn.Conv1d(dim, 2 * dim, 1)
        self.depthwise = nn.Conv1d(dim, dim, 7, padding=3, groups=dim)
        self.bn = nn.BatchNorm1d(dim)
        self.pointwise2 = nn.Conv1d(dim, dim, 1)
        self.ff2 = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.SiLU(),
                                 nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):  # x: [batch, mels, frames]
        h = self.subsample(x).transpose(1, 2)
        h = h + 0.5 * self.ff1(h)
        h = h + self.att(self.ln_att(h))
        c = self.ln_conv(h).transpose(1, 2)
        c = F.glu(self.pointwise(c), dim=1)
        c = self.pointwise2(F.silu(self.bn(self.depthwise(c))))
        h = h + c.transpose(1, 2)
        h = h + 0.5 * self.ff2(h)
        return torch.log_softmax(self.head(h), dim=-1)


class CRNN(nn.Module):
    """A CTC text recogniser: a small CNN over a text-line image, a
    bidirectional LSTM over its columns, log-softmax per column."""

    def __init__(self, classes=37):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d((2, 1)),
            nn.Conv2d(32, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU())
        self.rnn = nn.LSTM(48, 48, batch_first=True, bidirectional=True)
        self.head = nn.Linear(96, classes)

    def forward(self, x):
        f = self.cnn(x).mean(2).transpose(1, 2)  # [batch, columns, 48]
        out, _ = self.rnn(f)
        return F.log_softmax(self.head(out), dim=-1)


class MLPMixer(nn.Module):
    """MLP-Mixer: patch embedding, token- and channel-mixing MLPs."""

    def __init__(self, size=32, patch=4, dim=64, layers=2, classes=10):
        super().__init__()
        tokens_ = (size // patch) ** 2
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(dim), tok=nn.Sequential(nn.Linear(tokens_, 2 * tokens_),
                                                         nn.GELU(), nn.Linear(2 * tokens_, tokens_)),
                ln2=nn.LayerNorm(dim), ch=nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(),
                                                        nn.Linear(2 * dim, dim)))))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        for b in self.blocks:
            x = x + b["tok"](b["ln1"](x).transpose(1, 2)).transpose(1, 2)
            x = x + b["ch"](b["ln2"](x))
        return self.head(self.ln(x).mean(1))


class TinyUNet(nn.Module):
    """A two-level U-Net: ConvTranspose up-sampling, skip Concats."""

    def __init__(self, width=16):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())
        self.d1, self.d2, self.mid = block(3, width), block(width, 2 * width), block(2 * width, 4 * width)
        self.u2 = nn.ConvTranspose2d(4 * width, 2 * width, 2, stride=2)
        self.c2 = block(4 * width, 2 * width)
        self.u1 = nn.ConvTranspose2d(2 * width, width, 2, stride=2)
        self.c1 = block(2 * width, width)
        self.out = nn.Conv2d(width, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        m = self.mid(F.max_pool2d(b, 2))
        b = self.c2(torch.cat([self.u2(m), b], 1))
        return self.out(self.c1(torch.cat([self.u1(b), a], 1)))


# --- the zoo ----------------------------------------------------------------

class ESPCN(nn.Module):
    """Super-resolution: convolutions, then PixelShuffle (DepthToSpace)."""

    def __init__(self, r=3):
        super().__init__()
        self.a = nn.Conv2d(1, 64, 5, padding=2)
        self.b = nn.Conv2d(64, 32, 3, padding=1)
        self.c = nn.Conv2d(32, r * r, 3, padding=1)
        self.shuffle = nn.PixelShuffle(r)

    def forward(self, x):
        return self.shuffle(self.c(torch.tanh(self.b(torch.tanh(self.a(x))))))


class StyleNet(nn.Module):
    """Style transfer: reflection padding, InstanceNorm, residual blocks,
    nearest-neighbour upsampling."""

    def __init__(self):
        super().__init__()

        def block(i, o, k, stride):
            return nn.Sequential(nn.ReflectionPad2d(k // 2), nn.Conv2d(i, o, k, stride),
                                 nn.InstanceNorm2d(o, affine=True), nn.ReLU())
        self.down = nn.Sequential(block(3, 16, 9, 1), block(16, 32, 3, 2), block(32, 64, 3, 2))
        self.res = nn.ModuleList([nn.Sequential(block(64, 64, 3, 1), nn.ReflectionPad2d(1),
                                                nn.Conv2d(64, 64, 3),
                                                nn.InstanceNorm2d(64, affine=True))
                                  for _ in range(2)])
        self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), block(64, 32, 3, 1),
                                nn.Upsample(scale_factor=2, mode="nearest"), block(32, 16, 3, 1),
                                nn.ReflectionPad2d(4), nn.Conv2d(16, 3, 9))

    def forward(self, x):
        y = self.down(x)
        for r in self.res:
            y = y + r(y)
        return self.up(y)


class TCN(nn.Module):
    """Dilated causal 1D convolutions (left padding) with residuals."""

    def __init__(self, channels=32, levels=4):
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.convs = nn.ModuleList([nn.Conv1d(channels, channels, 3, dilation=2 ** i)
                                    for i in range(levels)])
        self.head = nn.Linear(channels, 5)

    def forward(self, x):
        y = self.inp(x)
        for i, conv in enumerate(self.convs):
            y = y + F.relu(conv(F.pad(y, (2 * 2 ** i, 0))))
        return self.head(y.mean(-1))


class BiLSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(800, 48)
        self.lstm = nn.LSTM(48, 32, batch_first=True, bidirectional=True)
        self.head = nn.Linear(64, 4)

    def forward(self, t):
        y, _ = self.lstm(self.emb(t))
        return self.head(y.max(1).values)


class TorchEncoder(nn.Module):
    """nn.TransformerEncoder (its exported attention bakes the sequence
    length in: both sets use 16 tokens)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(600, 64)
        self.pos = nn.Parameter(torch.randn(1, 32, 64) * 0.02)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True,
                                           activation="gelu")
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(64, 3)

    def forward(self, t):
        x = self.emb(t) + self.pos[:, : t.shape[1]]
        return self.head(self.enc(x)[:, 0])


class GroupNormNet(nn.Module):
    def __init__(self):
        super().__init__()

        def block(i, o, stride):
            return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.GroupNorm(8, o),
                                 nn.SiLU())
        self.features = nn.Sequential(block(3, 32, 2), block(32, 64, 2), block(64, 64, 1),
                                      block(64, 128, 2))
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


class AutoEncoder(nn.Module):
    """A ConvTranspose decoder with a sigmoid output in (0, 1)."""

    def __init__(self):
        super().__init__()
        self.encode = nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1), nn.ReLU(),
                                    nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.decode = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                                    nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        return self.decode(self.encode(x))


# --- added in session 27 ------------------------------------------------------

class ConvBNSiLU(nn.Sequential):
    def __init__(self, cin, cout, k=3, stride=1):
        super().__init__(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.SiLU())


class C2f(nn.Module):
    """YOLOv8's block: split, a chain of convolutions, concat of all."""

    def __init__(self, c):
        super().__init__()
        self.cv1 = ConvBNSiLU(c, 2 * c, 1)
        self.m = nn.Sequential(ConvBNSiLU(c, c), ConvBNSiLU(c, c))
        self.cv2 = ConvBNSiLU(3 * c, c, 1)

    def forward(self, x):
        a, b = self.cv1(x).chunk(2, 1)
        return self.cv2(torch.cat([a, b, self.m(b)], 1))


class YoloLike(nn.Module):
    """A backbone of C2f blocks, nearest up-sampling and Concat (an FPN
    level), a head with a DFL softmax over box bins and sigmoid class
    scores."""

    def __init__(self):
        super().__init__()
        self.stem = ConvBNSiLU(3, 16, 3, 2)
        self.down1, self.block1 = ConvBNSiLU(16, 32, 3, 2), C2f(32)
        self.down2, self.block2 = ConvBNSiLU(32, 64, 3, 2), C2f(64)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.reduce, self.fuse = ConvBNSiLU(96, 64, 1), C2f(64)
        self.box, self.cls = nn.Conv2d(64, 4 * 8, 1), nn.Conv2d(64, 5, 1)

    def forward(self, x):
        p3 = self.block1(self.down1(self.stem(x)))
        p4 = self.block2(self.down2(p3))
        f = self.fuse(self.reduce(torch.cat([self.up(p4)[:, :64], p3], 1)))
        n, _, h, w = f.shape
        box = self.box(f).view(n, 4, 8, h * w).softmax(2)
        box = (box * torch.arange(8, dtype=torch.float32).view(1, 1, 8, 1)).sum(2)
        return torch.cat([box, self.cls(f).view(n, 5, h * w).sigmoid()], 1)


class Wav2VecLike(nn.Module):
    """wav2vec 2.0's shape: a convolutional feature encoder (GroupNorm with
    a group per channel on its first layer, GELU), a grouped positional
    convolution, post-LN transformer layers, a log-softmax per frame."""

    def __init__(self, d=64):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(1, d, 10, 5, bias=False),
                                    nn.Conv1d(d, d, 3, 2, bias=False),
                                    nn.Conv1d(d, d, 3, 2, bias=False)])
        self.norm0 = nn.GroupNorm(d, d)
        self.proj, self.ln = nn.Linear(d, d), nn.LayerNorm(d)
        self.pos = nn.Conv1d(d, d, 15, padding=7, groups=4)
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True,
                                       activation="gelu") for _ in range(2)])
        self.head = nn.Linear(d, 12)

    def forward(self, x):
        for i, conv in enumerate(self.convs):
            x = conv(x)
            if i == 0:
                x = self.norm0(x)
            x = F.gelu(x)
        x = self.proj(self.ln(x.transpose(1, 2)))
        x = x + F.gelu(self.pos(x.transpose(1, 2))).transpose(1, 2)
        for layer in self.layers:
            x = layer(x)
        return self.head(x).log_softmax(-1)


class DLRMLike(nn.Module):
    """A recommender: a bottom MLP on dense features, embedding tables for
    sparse ones, pairwise dot interactions (bmm, upper triangle), a top MLP
    and a click probability."""

    SIZES = (1000, 500, 200, 50)

    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList([nn.Embedding(n, 16) for n in self.SIZES])
        self.bottom = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 16), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(16 + 10, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense, sparse):
        z = [self.bottom(dense)] + [t(sparse[:, i]) for i, t in enumerate(self.tables)]
        stacked = torch.stack(z, 1)
        pairs = torch.bmm(stacked, stacked.transpose(1, 2))
        i, j = torch.triu_indices(5, 5, 1)
        return torch.sigmoid(self.top(torch.cat([z[0], pairs[:, i, j]], 1)))


def dlrm_inputs(batch, gen, which=0):
    dense = torch.rand(batch, 13, generator=gen) * 3
    sparse = torch.stack([torch.randint(0, n, (batch,), generator=gen)
                          for n in DLRMLike.SIZES], 1)
    return dense, sparse


class ActZoo(nn.Module):
    """A CNN through the less common activations: PReLU, ELU, Softplus,
    Mish, LeakyReLU, a HardSigmoid gate, HardSwish, AvgPool."""

    def __init__(self):
        super().__init__()
        widths = [(3, 24, 1), (24, 32, 2), (32, 48, 2), (48, 48, 1), (48, 64, 2)]
        self.convs = nn.ModuleList([nn.Conv2d(i, o, 3, s, 1) for i, o, s in widths])
        self.acts = nn.ModuleList([nn.PReLU(24), nn.ELU(), nn.Softplus(), nn.Mish(),
                                   nn.LeakyReLU(0.1)])
        self.gate = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(64, 64, 1),
                                  nn.Hardsigmoid())
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        for conv, act in zip(self.convs, self.acts):
            x = act(conv(x))
        x = F.hardswish(x * self.gate(x))
        return self.fc(F.avg_pool2d(x, 4).flatten(1))


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; the zoo exports
    its "out" map."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def clip(batch, gen, which=0):
    return (torch.randn(batch, 3, 4, 32, 32, generator=gen),)


def waveform(batch, gen, which=0):
    # nn.TransformerEncoderLayer's export bakes the frame count in.
    return (torch.randn(batch, 1, 3200, generator=gen),)


def mels(frames):
    def make(batch, gen, which=0):
        return (torch.randn(batch, 40, frames + 20 * which, generator=gen),)
    return make


def text_line(batch, gen, which=0):
    return (torch.randn(batch, 1, 32, 96 + 32 * which, generator=gen),)


def vit():
    model = tvm.VisionTransformer(image_size=32, patch_size=8, num_layers=3, num_heads=4,
                                  hidden_dim=64, mlp_dim=128, num_classes=10)
    # torchvision starts the head at zero: every output would be 0.
    nn.init.normal_(model.heads.head.weight, std=0.1)
    return model


def swin():
    return tvm.swin_transformer.SwinTransformer(patch_size=[2, 2], embed_dim=32, depths=[2, 2],
                                                num_heads=[2, 4], window_size=[4, 4],
                                                num_classes=10)


def convnext():
    return ConvNeXt([CNBlockConfig(32, 64, 2), CNBlockConfig(64, None, 2)], num_classes=10)


BATCH_SEQ = {"batch": 0}
TOKENS = {"batch": 0, "length": 1}

# name: (constructor, input maker, dynamic axes per input, opset). An input
# maker takes (batch, generator, which set); the sequence models' sets also
# differ in length.
ZOO = {
    "squeezenet1_1": (lambda: tvm.squeezenet1_1(num_classes=10), images(64), [BATCH_SEQ], 13),
    "shufflenet_v2": (lambda: tvm.shufflenet_v2_x0_5(num_classes=10), images(64), [BATCH_SEQ], 13),
    "efficientnet_b0": (lambda: tvm.efficientnet_b0(num_classes=10), images(64), [BATCH_SEQ], 15),
    "regnet_x_400mf": (lambda: tvm.regnet_x_400mf(num_classes=10), images(64), [BATCH_SEQ], 17),
    "densenet121": (lambda: tvm.densenet121(num_classes=10), images(64), [BATCH_SEQ], 13),
    "mnasnet0_5": (lambda: tvm.mnasnet0_5(num_classes=10), images(64), [BATCH_SEQ], 15),
    "googlenet": (lambda: tvm.googlenet(num_classes=10, aux_logits=False, init_weights=True),
                  images(64), [BATCH_SEQ], 17),
    "mobilenet_v3_small": (lambda: tvm.mobilenet_v3_small(num_classes=10), images(64),
                           [BATCH_SEQ], 17),
    "resnet34": (lambda: tvm.resnet34(num_classes=10), images(64), [BATCH_SEQ], 15),
    "convnext_mini": (convnext, images(64), [BATCH_SEQ], 17),
    "unet_mini": (TinyUNet, images(32), [BATCH_SEQ], 13),
    "vit_mini": (vit, images(32), [BATCH_SEQ], 17),
    "swin_mini": (swin, images(32), [BATCH_SEQ], 17),
    "mlp_mixer": (MLPMixer, images(32), [BATCH_SEQ], 13),
    "distilbert_like": (EncoderClassifier, tokens(1000), [TOKENS], 14),
    "gpt2_like": (GPTLike, tokens(512), [TOKENS], 17),
    "t5_like_encoder": (T5LikeEncoder, tokens(512), [TOKENS], 17),
    "gru_text": (RecurrentClassifier, tokens(1000), [TOKENS], 13),
    "lstm_lm": (LSTMLanguageModel, tokens(400), [TOKENS], 15),
    "audio_cnn": (AudioCNN, audio(4000), [{"batch": 0, "samples": 2}], 13),
    "conformer_like": (ConformerLike, mels(50), [{"batch": 0, "frames": 2}], 17),
    "crnn_ctc": (CRNN, text_line, [{"batch": 0, "width": 3}], 13),
    # Added 2026-12-04 (docs/precision.md, "Fourteen more architectures").
    "mobilenet_v3_large": (lambda: tvm.mobilenet_v3_large(num_classes=10), images(64),
                           [BATCH_SEQ], 17),
    "regnet_y_400mf": (lambda: tvm.regnet_y_400mf(num_classes=10), images(64), [BATCH_SEQ], 15),
    "resnext50": (lambda: tvm.resnext50_32x4d(num_classes=10), images(64), [BATCH_SEQ], 13),
    "efficientnet_v2_s": (lambda: tvm.efficientnet_v2_s(num_classes=10), images(64),
                          [BATCH_SEQ], 17),
    "shufflenet_v2_1_0": (lambda: tvm.shufflenet_v2_x1_0(num_classes=10), images(64),
                          [BATCH_SEQ], 15),
    "squeezenet1_0": (lambda: tvm.squeezenet1_0(num_classes=10), images(64), [BATCH_SEQ], 13),
    "mnasnet1_0": (lambda: tvm.mnasnet1_0(num_classes=10), images(64), [BATCH_SEQ], 13),
    "espcn": (ESPCN, images(32, channels=1), [BATCH_SEQ], 13),
    "style_net": (StyleNet, images(32), [BATCH_SEQ], 13),
    "tcn": (TCN, audio(1200), [{"batch": 0, "samples": 2}], 13),
    "bilstm": (BiLSTMClassifier, tokens(800), [TOKENS], 14),
    "torch_encoder": (TorchEncoder, tokens(600, lengths=(16, 16)), [BATCH_SEQ], 17),
    "groupnorm_net": (GroupNormNet, images(32), [BATCH_SEQ], 18),
    "autoencoder": (AutoEncoder, images(32, channels=1), [BATCH_SEQ], 13),
    # Added in session 27 (docs/precision.md, "Thirteen more architectures").
    "yolo_like": (YoloLike, images(64), [BATCH_SEQ], 17),
    "wav2vec_like": (Wav2VecLike, waveform, [BATCH_SEQ], 17),
    "dlrm_like": (DLRMLike, dlrm_inputs, [BATCH_SEQ, BATCH_SEQ], 13),
    "act_zoo": (ActZoo, images(32), [BATCH_SEQ], 12),
    "deeplabv3_mnv3": (lambda: SegmentationOut(seg.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=5, aux_loss=False)),
        images(64), [BATCH_SEQ], 13),
    "lraspp_mnv3": (lambda: SegmentationOut(seg.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=4)), images(64), [BATCH_SEQ], 11),
    "r3d_18": (lambda: video.r3d_18(num_classes=10), clip, [BATCH_SEQ], 13),
    "inception_v3": (lambda: tvm.inception_v3(num_classes=10, aux_logits=False,
                                              init_weights=True), images(80), [BATCH_SEQ], 13),
    "swin_v2_t": (lambda: tvm.swin_v2_t(num_classes=10), images(64), [BATCH_SEQ], 17),
    "efficientnet_b3": (lambda: tvm.efficientnet_b3(num_classes=10), images(64), [BATCH_SEQ], 15),
    "resnet50_op9": (lambda: tvm.resnet50(num_classes=10), images(64), [BATCH_SEQ], 9),
    "regnet_y_800mf": (lambda: tvm.regnet_y_800mf(num_classes=10), images(64), [BATCH_SEQ], 16),
    "mobilenet_v2_op10": (lambda: tvm.mobilenet_v2(num_classes=10, width_mult=0.75),
                          images(64), [BATCH_SEQ], 10),
}
