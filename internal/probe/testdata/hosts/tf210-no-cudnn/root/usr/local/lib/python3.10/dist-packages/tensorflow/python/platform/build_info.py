# Copyright 2020 The TensorFlow Authors. (fixture)
"""Auto-generated module providing information about the build."""
import collections

build_info = collections.OrderedDict()
build_info[cpu_compiler] = /dt9/usr/bin/gcc
build_info[cuda_compute_capabilities] = [sm_35, sm_50, sm_60, sm_70, sm_75, compute_80]
build_info[cuda_version] = 11.2
build_info[cudnn_version] = 8
build_info[is_cuda_build] = True
build_info[is_rocm_build] = False
build_info[is_tensorrt_build] = True
