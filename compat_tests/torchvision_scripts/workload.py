"""torchvision's everyday workflows, written once and run twice by `test_torchvision.py`: under
`python -m torchlike` and on real PyTorch (`real_torchvision.py`). Every result goes into an
.npz (argv[1]); the data directory (argv[2]) holds a CIFAR-10 folder and an ImageFolder tree
made by the test."""
import io
import os
import sys

import numpy as np
import torch
from PIL import Image
from torchvision import datasets, io as tvio, models, ops, transforms, tv_tensors, utils
from torchvision.transforms import functional as TF
from torchvision.transforms import v2

OUT, ROOT = sys.argv[1], sys.argv[2]
R = {}


def put(name, value):
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    R[name] = np.asarray(value)


def cifar():
    train = datasets.CIFAR10(ROOT, train=True, download=False, transform=transforms.ToTensor())
    test = datasets.CIFAR10(ROOT, train=False, download=False)
    put("cifar_len", [len(train), len(test)])
    put("cifar_classes", np.array(train.classes))
    for i in (0, 5, len(train) - 1):
        x, y = train[i]
        put(f"cifar_{i}", x)
        put(f"cifar_{i}_label", y)
    img, label = test[1]
    put("cifar_test_pil", np.asarray(img))
    return train


def transforms_v1(train):
    pipe = transforms.Compose([transforms.RandomCrop(32, padding=4),
                               transforms.RandomHorizontalFlip(),
                               transforms.ToTensor(),
                               transforms.Normalize((0.4914, 0.4822, 0.4465),
                                                    (0.247, 0.243, 0.261))])
    train.transform = pipe
    torch.manual_seed(0)
    for i in range(6):
        put(f"v1_pipe_{i}", train[i][0])
    pil = Image.fromarray(train.data[3])
    x = transforms.ToTensor()(pil)
    torch.manual_seed(1)
    cases = {
        "resize_pil": transforms.Resize(20)(pil),
        "resize_tensor": transforms.Resize((20, 24))(x),
        "resize_bicubic": transforms.Resize(40, interpolation=transforms.InterpolationMode.BICUBIC)(x),
        "resize_uint8": transforms.Resize(17)(transforms.PILToTensor()(pil)),
        "center_crop": transforms.CenterCrop(20)(x),
        "color_jitter": transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)(x),
        "color_jitter_pil": transforms.ColorJitter(0.4, 0.4, 0.4)(pil),
        "random_resized_crop": transforms.RandomResizedCrop(24)(x),
        "grayscale": transforms.Grayscale(num_output_channels=3)(x),
        "rotation": transforms.RandomRotation(15)(x),
        "affine": transforms.RandomAffine(10, translate=(0.1, 0.1), scale=(0.9, 1.1))(x),
        "perspective": transforms.RandomPerspective(p=1.0)(x),
        "blur": transforms.GaussianBlur(5, sigma=(0.1, 2.0))(x),
        "erasing": transforms.RandomErasing(p=1.0)(x),
        "pad_reflect": transforms.Pad(3, padding_mode="reflect")(x),
        "posterize": transforms.RandomPosterize(2, p=1.0)(transforms.PILToTensor()(pil)),
        "equalize": transforms.RandomEqualize(p=1.0)(transforms.PILToTensor()(pil)),
        "autocontrast": TF.autocontrast(x),
        "adjust_hue": TF.adjust_hue(x, 0.2),
        "adjust_gamma": TF.adjust_gamma(x, 0.7),
        "sharpness": TF.adjust_sharpness(x, 2.0),
        "invert": TF.invert(x),
        "to_pil_back": np.asarray(TF.to_pil_image(x)),
        "five_crop": torch.stack(transforms.FiveCrop(16)(x)),
        "autoaugment": transforms.AutoAugment()(transforms.PILToTensor()(pil)),
        "randaugment": transforms.RandAugment()(transforms.PILToTensor()(pil)),
        "trivialaugment": transforms.TrivialAugmentWide()(transforms.PILToTensor()(pil)),
    }
    for k, v in cases.items():
        put(f"v1_{k}", np.asarray(v) if isinstance(v, Image.Image) else v)
    put("v1_rng_after", torch.rand(3))


def loader(train):
    train.transform = transforms.ToTensor()
    g = torch.Generator().manual_seed(7)
    dl = torch.utils.data.DataLoader(train, batch_size=4, shuffle=True, generator=g)
    for i, (x, y) in enumerate(dl):
        put(f"loader_{i}_x", x)
        put(f"loader_{i}_y", y)


def folder():
    ds = datasets.ImageFolder(os.path.join(ROOT, "folder"), transform=transforms.ToTensor())
    put("folder_classes", np.array(ds.classes))
    put("folder_targets", ds.targets)
    put("folder_0", ds[0][0])
    put("folder_last", ds[len(ds) - 1][0])
    fake = datasets.FakeData(size=3, image_size=(3, 8, 8), num_classes=4,
                             transform=transforms.ToTensor())
    for i in range(3):
        put(f"fake_{i}", fake[i][0])
        put(f"fake_{i}_label", fake[i][1])


def image_io():
    """torchvision.io (its `image` extension): on torchlike only (real torchvision cannot load
    it here); the test compares with Pillow."""
    path = os.path.join(ROOT, "folder", "cat", "0.png")
    put("tl_io_read", tvio.read_image(path))
    put("tl_io_gray", tvio.read_image(path, mode=tvio.ImageReadMode.GRAY))
    put("tl_io_png_roundtrip", tvio.decode_png(tvio.encode_png(tvio.read_image(path))))
    jpg = tvio.encode_jpeg(tvio.read_image(path), quality=95)
    put("tl_io_jpeg", tvio.decode_jpeg(jpg))
    put("tl_io_jpeg_bytes", jpg)


def utilities(train):
    grid = utils.make_grid(torch.stack([train[i][0] for i in range(5)]), nrow=3, padding=2,
                           normalize=True)
    put("grid", grid)
    buf = io.BytesIO()
    utils.save_image(grid, buf, format="png")
    put("grid_png", np.asarray(Image.open(io.BytesIO(buf.getvalue()))))
    boxes = torch.tensor([[1, 2, 10, 12], [5, 5, 20, 30]])
    img = torch.zeros(3, 32, 32, dtype=torch.uint8)
    put("draw_boxes", utils.draw_bounding_boxes(img, boxes, colors="red", width=2))
    mask = torch.zeros(2, 32, 32, dtype=torch.bool)
    mask[0, :8], mask[1, 10:] = True, True
    put("draw_masks", utils.draw_segmentation_masks(img, mask, alpha=0.5))


def transforms_v2(train):
    pil = Image.fromarray(train.data[2])
    img = tv_tensors.Image(transforms.PILToTensor()(pil))
    boxes = tv_tensors.BoundingBoxes([[2, 3, 20, 25], [10, 0, 31, 12]], format="XYXY",
                                     canvas_size=(32, 32))
    mask = tv_tensors.Mask(torch.arange(32 * 32).reshape(32, 32) % 3)
    torch.manual_seed(3)
    pipe = v2.Compose([v2.RandomResizedCrop(24, antialias=True),
                       v2.RandomHorizontalFlip(p=1.0),
                       v2.RandomPhotometricDistort(p=1.0),
                       v2.ToDtype(torch.float32, scale=True),
                       v2.Normalize([0.5] * 3, [0.25] * 3)])
    out_img, out_boxes, out_mask = pipe(img, boxes, mask)
    put("v2_img", out_img)
    put("v2_boxes", out_boxes)
    put("v2_mask", out_mask)
    put("v2_types", np.array([type(o).__name__ for o in (out_img, out_boxes, out_mask)]))
    put("v2_resize", v2.Resize(20)(img))
    put("v2_boxes_convert", v2.ConvertBoundingBoxFormat("CXCYWH")(boxes))
    put("v2_sanitize", v2.SanitizeBoundingBoxes(labels_getter=None)(
        tv_tensors.BoundingBoxes([[0, 0, 0, 5], [1, 1, 9, 9]], format="XYXY",
                                 canvas_size=(10, 10))))
    torch.manual_seed(4)
    put("v2_autoaugment", v2.AutoAugment()(img))
    put("v2_mixup_like", v2.functional.horizontal_flip(img.float()) * 0.5)


def model_zoo():
    torch.manual_seed(0)
    for name, make in (("resnet18", lambda: models.resnet18(num_classes=10)),
                       ("mobilenet_v3_small", lambda: models.mobilenet_v3_small(num_classes=10))):
        m = make()
        x = torch.randn(4, 3, 64, 64)
        m.eval()
        with torch.no_grad():
            put(f"{name}_eval", m(x))
        m.train()
        opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        y = torch.tensor([1, 2, 3, 4])
        losses = []
        for _ in range(2):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        put(f"{name}_losses", losses)
        put(f"{name}_first_grad", next(m.parameters()).grad)


def native_ops():
    g = torch.Generator().manual_seed(5)
    xy = torch.rand(40, 2, generator=g) * 50
    wh = torch.rand(40, 2, generator=g) * 20 + 1
    boxes = torch.cat([xy, xy + wh], 1)
    scores = torch.rand(40, generator=g)
    idxs = torch.randint(0, 3, (40,), generator=g)
    put("nms", ops.nms(boxes, scores, 0.3))
    put("batched_nms", ops.batched_nms(boxes, scores, idxs, 0.3))
    put("box_iou", ops.box_iou(boxes[:10], boxes[10:20]))
    put("giou", ops.generalized_box_iou(boxes[:10], boxes[10:20]))
    put("box_convert", ops.box_convert(boxes[:5], "xyxy", "cxcywh"))
    put("remove_small", ops.remove_small_boxes(boxes, 10.0))
    feat = torch.randn(2, 3, 20, 24, generator=g, requires_grad=True)
    rois = [boxes[:6] / 3, boxes[6:9] / 3]
    for aligned in (False, True):
        for sr in (-1, 2):
            r = ops.roi_align(feat, rois, output_size=(4, 5), spatial_scale=0.8,
                              sampling_ratio=sr, aligned=aligned)
            (grad,) = torch.autograd.grad((r * r).sum(), feat)
            put(f"roi_align_{aligned}_{sr}", r)
            put(f"roi_align_{aligned}_{sr}_grad", grad)
    p = ops.roi_pool(feat, rois, output_size=3, spatial_scale=0.8)
    (grad,) = torch.autograd.grad((p * p).sum(), feat)
    put("roi_pool", p)
    put("roi_pool_grad", grad)
    pooler = ops.MultiScaleRoIAlign(["a", "b"], output_size=3, sampling_ratio=2)
    fm = {"a": feat.detach(), "b": feat.detach()[:, :, ::2, ::2]}
    put("multiscale", pooler(fm, [boxes[:4] * 2, boxes[4:7] * 2], [(64, 64), (64, 64)]))
    put("sigmoid_focal", ops.sigmoid_focal_loss(scores, (scores > 0.5).float(),
                                                reduction="mean"))


for step in (cifar,):
    dataset = step()
for step in (transforms_v1, loader, utilities, transforms_v2):
    step(dataset)
if torch.__name__ == "torchlike":
    image_io()
for step in (folder, model_zoo, native_ops):
    step()
np.savez(OUT, **R)
print("ok", len(R))
