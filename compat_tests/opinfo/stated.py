"""Where torchlike differs from PyTorch on the OpInfo database, and why.

`STATED[op][key] = reason`. A key is `kind[:dtype[:variant[:sample]]]` ("forward:bool",
"error", "grad:float64:function:3"), `*` for any part; `"*"` alone is the whole entry. A failing case no key explains fails
test_opinfo.py; a key that the CI run reaches and no longer sees fail fails it too.
"""

# Entries whose reason still reads as what differs (not why) are open: found by the database and
# not yet investigated. `python compat_tests/opinfo/unexplained.py cases.json` prints new ones.
STATED = {
    '__radd__': {
        'error:*:function': 'torchlike does not raise PyTorch\'s TypeError ("descriptor \'__radd__\' for \'torch._C.TensorBase\' objects doesn\'t apply ")',
    },
    '__rand__': {
        'error:*:function': 'torchlike does not raise PyTorch\'s TypeError ("descriptor \'__rand__\' for \'torch._C.TensorBase\' objects doesn\'t apply ")',
    },
    '__rdiv__': {
        'error:*:function': 'torchlike does not raise PyTorch\'s AttributeError ("\'int\' object has no attribute \'reciprocal\'")',
    },
    '__rmul__': {
        'error:*:function': 'torchlike does not raise PyTorch\'s TypeError ("descriptor \'__rmul__\' for \'torch._C.TensorBase\' objects doesn\'t apply ")',
    },
    '__ror__': {
        'error:*:function': 'torchlike does not raise PyTorch\'s TypeError ("descriptor \'__ror__\' for \'torch._C.TensorBase\' objects doesn\'t apply t")',
    },
    '__rxor__': {
        'error:*:function': 'torchlike does not raise PyTorch\'s TypeError ("descriptor \'__rxor__\' for \'torch._C.TensorBase\' objects doesn\'t apply ")',
    },
    '_batch_norm_with_update': {
        '*': 'torchlike lacks torch._ops.aten',
    },
    '_chunk_cat': {
        '*': 'torchlike lacks torchlike._chunk_cat',
    },
    '_native_batch_norm_legit': {
        '*': 'torchlike lacks torchlike._native_batch_norm_legit',
    },
    '_segment_reduce.lengths': {
        '*': 'torchlike lacks torchlike.segment_reduce',
    },
    '_segment_reduce.offsets': {
        '*': 'torchlike lacks torchlike.segment_reduce',
    },
    '_softmax_backward_data': {
        '*': 'torchlike lacks torch._ops.aten',
    },
    '_unsafe_masked_index': {
        '*': 'torchlike lacks torchlike._unsafe_masked_index',
    },
    '_unsafe_masked_index_put_accumulate': {
        '*': 'torchlike lacks torchlike._unsafe_masked_index_put_accumulate',
    },
    '_upsample_bilinear2d_aa': {
        '*': 'torchlike lacks torch._ops.aten',
    },
    'addbmm': {
        'forward:float32:inplace': 'result: torch gave tensor([[-4.3680e+01, -9.0546e+01, -1.0362e+02, -5.6768e+01,  8.0433e+01, |      ',
        'forward:int64:inplace': 'result: torch gave tensor([[ 103,  -91, -203,   63,  -55, -293,   46,   73,  164,   38], |         [',
    },
    'addr': {
        'forward:bool:inplace': "PyTorch's message is '2D tensor expected, got 0D tensor for input'",
        'forward:float32:inplace': "PyTorch's message is '2D tensor expected, got 0D tensor for input'",
        'forward:int64:inplace': "PyTorch's message is '2D tensor expected, got 0D tensor for input'",
    },
    'alias_copy': {
        '*': 'torchlike lacks torchlike.alias_copy',
    },
    'amax': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('only tensors with up to 64 dims are supported')",
    },
    'amin': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('only tensors with up to 64 dims are supported')",
    },
    'aminmax': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('only tensors with up to 64 dims are supported')",
    },
    'arange': {
        'error:*:function': "torchlike does not raise PyTorch's ValueError ('step must be nonzero')",
    },
    'argsort': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
    },
    'as_strided.partial_views': {
        'grad:float64:function': 'values differ',
    },
    'as_strided_copy': {
        '*': 'torchlike lacks torchlike.as_strided_copy',
    },
    'as_strided_scatter': {
        '*': 'torchlike lacks torchlike.as_strided_scatter',
    },
    'baddbmm': {
        'forward:float32:inplace': "PyTorch's message is 'Bad in-place call: input tensor size [1] and output tensor size [5, 5, 10] should match'",
        'forward:int64:inplace': "PyTorch's message is 'Bad in-place call: input tensor size [1] and output tensor size [5, 5, 10] should match'",
    },
    'bernoulli': {
        'grad:float64:function': "torchlike raises AssertionError: '0 differentiable outputs, PyTorch has 1'",
    },
    'bitwise_and': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('bitwise_and() received an invalid combination of arguments - got (int,')",
    },
    'bitwise_left_shift': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('bitwise_left_shift() received an invalid combination of arguments - go')",
    },
    'bitwise_or': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('bitwise_or() received an invalid combination of arguments - got (int, ')",
    },
    'bitwise_right_shift': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('bitwise_right_shift() received an invalid combination of arguments - g')",
    },
    'bitwise_xor': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('bitwise_xor() received an invalid combination of arguments - got (int,')",
    },
    'chalf': {
        'forward:bool:function': "torchlike raises NotAvailable: 'torch.Tensor.chalf is not available in torchlike yet'",
        'forward:bool:method': 'torchlike lacks Tensor.chalf',
        'forward:float32:function': "torchlike raises NotAvailable: 'torch.Tensor.chalf is not available in torchlike yet'",
        'forward:float32:method': 'torchlike lacks Tensor.chalf',
        'forward:int64:function': "torchlike raises NotAvailable: 'torch.Tensor.chalf is not available in torchlike yet'",
        'forward:int64:method': 'torchlike lacks Tensor.chalf',
        'grad:float64:function': "torchlike raises NotAvailable: 'torch.Tensor.chalf is not available in torchlike yet'",
    },
    'complex': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('Expected object of scalar type ComplexDouble but got scalar type Compl')",
        'grad:float64:function': "torchlike raises AssertionError: '0 differentiable outputs, PyTorch has 1'",
    },
    'constant_pad_nd': {
        '*': 'torchlike lacks torchlike.constant_pad_nd',
    },
    'cov': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('cov(): expected fweights to have one or fewer dimensions but got fweig')",
    },
    'diagonal_copy': {
        '*': 'torchlike lacks torchlike.diagonal_copy',
    },
    'digamma': {
        'grad:float64:function': 'values differ',
    },
    'dsplit': {
        'error:*:function': "PyTorch raises RuntimeError 'torch.dsplit requires a tensor with at least 3 dimension, but got a te', torchlike IndexError",
    },
    'empty_permuted': {
        '*': 'torchlike lacks torchlike.empty_permuted',
    },
    'expand_copy': {
        '*': 'torchlike lacks torchlike.expand_copy',
    },
    'flip': {
        'forward:bool:method': 'result: torch gave tensor([[[ True,  True,  True,  True, False], |          [False, False, False, Fa',
        'forward:float32:method': 'result: torch gave tensor([[[-8.8036e+00,  5.0512e-01, -1.2800e-03, -2.0948e+00, -4.4918e+00], |    ',
        'forward:int64:method': 'result: torch gave tensor([[[ 5, -2,  8,  5,  7], |          [-3, -4,  5,  7,  7],          [ 6, -2,',
    },
    'float_power': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('float_power() received an invalid combination of arguments - got (int,')",
    },
    'gather': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('Expected out tensor to have dtype float, but got double instead')",
    },
    'geqrf': {
        '*': 'torchlike lacks torchlike.geqrf',
    },
    'gradient': {
        '*': 'torchlike lacks torchlike.gradient',
    },
    'grid_sampler_2d': {
        '*': 'torchlike lacks torchlike.grid_sampler_2d',
    },
    'grid_sampler_3d': {
        '*': 'torchlike lacks torchlike.grid_sampler_3d',
    },
    'hash_tensor': {
        '*': 'torchlike lacks torchlike.hash_tensor',
    },
    'histogramdd': {
        '*': 'torchlike lacks torchlike.histogramdd',
    },
    'hsplit': {
        'error:*:function': "PyTorch raises RuntimeError 'torch.hsplit requires a tensor with at least 1 dimension, but got a te', torchlike IndexError",
    },
    'index_add': {
        'error:*:function': "PyTorch raises RuntimeError 'source tensor shape must match self tensor shape, excluding the specif', torchlike TypeError",
    },
    'index_select': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('unsupported operation: more than one element of the written-to tensor ')",
    },
    'jiterator_2inputs_2outputs': {
        '*': 'torchlike lacks torch.cuda.jiterator',
    },
    'jiterator_4inputs_with_extra_args': {
        '*': 'torchlike lacks torch.cuda.jiterator',
    },
    'jiterator_binary': {
        '*': 'torchlike lacks torch.cuda.jiterator',
    },
    'jiterator_binary_return_by_ref': {
        '*': 'torchlike lacks torch.cuda.jiterator',
    },
    'jiterator_unary': {
        '*': 'torchlike lacks torch.cuda.jiterator',
    },
    'kthvalue': {
        'forward:int64:function': 'values differ',
        'forward:int64:method': 'values differ',
    },
    'ldexp': {
        'grad:float64:function': 'values differ',
    },
    'linalg.cross': {
        'error:*:function': "PyTorch raises RuntimeError 'linalg.cross: inputs dimension -1 must have length 3. Got 3 and 1', torchlike RuntimeError",
    },
    'linalg.det': {
        'grad:float64:function': "torchlike raises IndexError: 'index is out of bounds for axis 0 with size 0'",
    },
    'linalg.eig': {
        'grad:float64:function': "torchlike raises NotImplementedError: 'Derivatives of non-symmetric eigenvectors are only valid under assumptions on th'",
    },
    'linalg.householder_product': {
        '*': 'torchlike lacks torchlike.linalg.householder_product',
    },
    'linalg.inv': {
        'forward:float32:function': "torchlike raises ValueError: 'attempt to get argmax of an empty sequence'",
        'grad:float64:function': "torchlike raises ValueError: 'attempt to get argmax of an empty sequence'",
    },
    'linalg.inv_ex': {
        'forward:float32:function': "torchlike raises ValueError: 'attempt to get argmax of an empty sequence'",
        'grad:float64:function': "torchlike raises ValueError: 'attempt to get argmax of an empty sequence'",
    },
    'linalg.ldl_factor': {
        '*': 'torchlike lacks torchlike.linalg.ldl_factor',
    },
    'linalg.ldl_factor_ex': {
        '*': 'torchlike lacks torchlike.linalg.ldl_factor_ex',
    },
    'linalg.ldl_solve': {
        '*': 'torchlike lacks torchlike.linalg.ldl_solve',
    },
    'linalg.lstsq': {
        'error:*:function': "PyTorch raises RuntimeError 'torch.linalg.lstsq: input must have at least 2 dimensions.', torchlike IndexError",
        'forward:float32:function': "result shape (), PyTorch's (0,)",
        'grad:float64:function': "torchlike raises AssertionError: '3 differentiable outputs, PyTorch has 2'",
    },
    'linalg.lstsq.grad_oriented': {
        'error:*:function': "PyTorch raises RuntimeError 'torch.linalg.lstsq: input must have at least 2 dimensions.', torchlike IndexError",
    },
    'linalg.lu': {
        '*': 'torchlike lacks torchlike.linalg.lu',
    },
    'linalg.lu_factor': {
        '*': 'torchlike lacks torchlike.linalg.lu_factor',
    },
    'linalg.lu_factor_ex': {
        '*': 'torchlike lacks torchlike.linalg.lu_factor_ex',
    },
    'linalg.lu_solve': {
        '*': 'torchlike lacks torchlike.linalg.lu_solve',
    },
    'linalg.norm.subgradients_at_zero': {
        'grad:float64:function': 'grad[0]: None (NoneType) vs tensor([0., 0., 0., 0., 0.], dtype=torch.float64) (Tensor)',
    },
    'linalg.pinv.hermitian': {
        'forward:float32:function': 'values differ',
    },
    'linalg.tensorinv': {
        '*': 'torchlike lacks torchlike.linalg.tensorinv',
    },
    'linalg.tensorsolve': {
        '*': 'torchlike lacks torchlike.linalg.tensorsolve',
    },
    'linalg.vander': {
        '*': 'torchlike lacks torchlike.linalg.vander',
    },
    'logsumexp': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
    },
    'lu': {
        '*': 'torchlike lacks torchlike.lu',
    },
    'lu_solve': {
        '*': 'torchlike lacks torchlike.lu_solve',
    },
    'lu_unpack': {
        '*': 'torchlike lacks torchlike.lu_unpack',
    },
    'masked_fill': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('value cannot be converted to type int64_t without overflow')",
    },
    'matrix_exp': {
        'forward:float32:function': 'values differ',
        'forward:float32:method': 'values differ',
    },
    'max.binary': {
        'error:*:function': 'torch TypeError: max() received an invalid combination of arguments - got (int, int), but expected o',
    },
    'max_pool2d_with_indices_backward': {
        'forward:float32:function': 'result: torch gave tensor([[[[0., 0., 0., 0., 0., 0.], |           [0., 0., 0., 0., 2., 0.],        ',
        'grad:float64:function': 'torchlike raises AttributeError: "\'_OpNamespace\' \'aten\' object has no attribute \'max_pool2d_with_indices_backward\'"',
    },
    'min.binary': {
        'error:*:function': 'torch TypeError: min() received an invalid combination of arguments - got (int, int), but expected o',
    },
    'movedim': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('movedim: repeated dim in `source` ([0, 4, -5])')",
    },
    'multinomial': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('multinomial expects Long tensor out, got: Double')",
    },
    'mvlgamma.mvlgamma_p_1': {
        'forward:int64:inplace': 'PyTorch\'s message is "mvlgamma: result type Long can\'t be cast to the desired output type Float"',
    },
    'mvlgamma.mvlgamma_p_3': {
        'forward:int64:inplace': 'PyTorch\'s message is "mvlgamma: result type Long can\'t be cast to the desired output type Float"',
    },
    'mvlgamma.mvlgamma_p_5': {
        'forward:int64:inplace': 'PyTorch\'s message is "mvlgamma: result type Long can\'t be cast to the desired output type Float"',
    },
    'narrow': {
        'error:*:function': "PyTorch raises RuntimeError 'narrow(): length must be non-negative.', torchlike RuntimeError",
    },
    'narrow_copy': {
        'error:*:function': "PyTorch raises RuntimeError 'Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but', torchlike IndexError",
    },
    'native_batch_norm': {
        '*': 'torchlike lacks torchlike.native_batch_norm',
    },
    'native_dropout_backward': {
        '*': 'torchlike lacks torch._ops.aten',
    },
    'native_group_norm': {
        '*': 'torchlike lacks torchlike.native_group_norm',
    },
    'native_layer_norm': {
        '*': 'torchlike lacks torchlike.native_layer_norm',
    },
    'nextafter': {
        'grad:float64:function': 'torchlike raises NotImplementedError: "Differentiation rule for \'nextafter\' not implemented"',
    },
    'nn.functional.adaptive_avg_pool1d': {
        'error:*:function': 'PyTorch raises RuntimeError "adaptive_avg_pool1d() argument \'output_size\' should contain one int (g", torchlike RuntimeError',
        'forward:float32:function': "torchlike raises ZeroDivisionError: 'integer modulo by zero'",
        'grad:float64:function': "torchlike raises ZeroDivisionError: 'integer modulo by zero'",
    },
    'nn.functional.adaptive_avg_pool2d': {
        'error:*:function': "PyTorch raises ValueError 'Input dimension should be at least 3', torchlike RuntimeError",
    },
    'nn.functional.adaptive_avg_pool3d': {
        'error:*:function': "PyTorch raises ValueError 'Input dimension should be at least 4', torchlike RuntimeError",
        'forward:float32:function': "torchlike raises ZeroDivisionError: 'integer modulo by zero'",
        'grad:float64:function': "torchlike raises ZeroDivisionError: 'integer modulo by zero'",
    },
    'nn.functional.adaptive_max_pool1d': {
        'error:*:function': 'PyTorch raises RuntimeError "adaptive_max_pool1d() argument \'output_size\' should contain one int (g", torchlike RuntimeError',
    },
    'nn.functional.adaptive_max_pool2d': {
        'error:*:function': "PyTorch raises ValueError 'Input dimension should be at least 3', torchlike RuntimeError",
    },
    'nn.functional.adaptive_max_pool3d': {
        'error:*:function': "PyTorch raises ValueError 'Input dimension should be at least 4', torchlike RuntimeError",
    },
    'nn.functional.avg_pool1d': {
        'error:*:function': "PyTorch raises RuntimeError 'pad must be non-negative, but got pad: -1', torchlike ZeroDivisionError",
        'forward:int64:function': 'values differ',
    },
    'nn.functional.avg_pool2d': {
        'error:*:function': "PyTorch raises RuntimeError 'pad must be non-negative, but got pad: -1', torchlike RuntimeError",
        'forward:int64:function': 'values differ',
    },
    'nn.functional.avg_pool3d': {
        'error:*:function': "PyTorch raises RuntimeError 'pad must be non-negative, but got pad: -1', torchlike RuntimeError",
        'forward:int64:function': 'values differ',
    },
    'nn.functional.conv1d': {
        'error:*:function': "PyTorch raises RuntimeError 'non-positive stride is not supported', torchlike RuntimeError",
    },
    'nn.functional.conv2d': {
        'error:*:function': "PyTorch raises RuntimeError 'non-positive stride is not supported', torchlike RuntimeError",
    },
    'nn.functional.conv3d': {
        'error:*:function': "PyTorch raises RuntimeError 'non-positive stride is not supported', torchlike ValueError",
    },
    'nn.functional.cosine_embedding_loss': {
        'grad:float64:function': 'grad[2]: None (NoneType) vs tensor([0., 0., 0., 0., 0.], dtype=torch.float64) (Tensor)',
    },
    'nn.functional.hardtanh': {
        'error:*:function': "torchlike does not raise PyTorch's ValueError ('min_val cannot be greater than max_val')",
    },
    'nn.functional.hinge_embedding_loss': {
        'grad:float64:function': 'grad[1]: None (NoneType) vs tensor([0., 0., 0., 0., 0.], dtype=torch.float64) (Tensor)',
    },
    'nn.functional.linear_cross_entropy': {
        '*': 'torchlike lacks torchlike.nn.functional.linear_cross_entropy',
    },
    'nn.functional.linear_cross_entropy.chunked': {
        '*': 'torchlike lacks torchlike.nn.functional.linear_cross_entropy',
    },
    'nn.functional.linear_cross_entropy.chunked_none': {
        '*': 'torchlike lacks torchlike.nn.functional.linear_cross_entropy',
    },
    'nn.functional.local_response_norm': {
        'forward:int64:function': "result dtype torch.float64, PyTorch's torch.float32",
    },
    'nn.functional.max_pool1d': {
        'error:*:function': "PyTorch raises RuntimeError 'pad must be non-negative, but got pad: -1', torchlike ZeroDivisionError",
    },
    'nn.functional.max_pool2d': {
        'error:*:function': "PyTorch raises RuntimeError 'pad must be non-negative, but got pad: -1', torchlike RuntimeError",
    },
    'nn.functional.max_pool3d': {
        'error:*:function': "PyTorch raises RuntimeError 'pad must be non-negative, but got pad: -1', torchlike RuntimeError",
    },
    'nn.functional.max_unpool1d': {
        'error:*:function': "PyTorch raises RuntimeError 'Expected shape of indices to be same as that of the input tensor ([8, ', torchlike ValueError",
        'grad:float64:function': 'values differ',
    },
    'nn.functional.max_unpool2d': {
        'error:*:function': "PyTorch raises RuntimeError 'Expected shape of indices to be same as that of the input tensor ([1, ', torchlike ValueError",
        'grad:float64:function': 'values differ',
    },
    'nn.functional.max_unpool3d': {
        'error:*:function': "PyTorch raises RuntimeError 'Expected shape of indices to be same as that of the input tensor ([1, ', torchlike ValueError",
        'grad:float64:function': 'values differ',
    },
    'nn.functional.multi_margin_loss': {
        'error:*:function': "PyTorch raises RuntimeError 'expected scalar type Long but found Float', torchlike RuntimeError",
    },
    'nn.functional.pad.replicate_negative': {
        'forward:float32:function': 'result: torch gave tensor([[[[-2.4005, -2.4005, -2.4005, -2.4005, -2.4005], |           [-0.5735, -0',
        'forward:int64:function': 'result: torch gave tensor([[[[ 0,  0,  0,  0,  0], |           [ 7,  7,  7,  7,  7],           [-5, ',
        'grad:float64:function': 'torchlike raises ValueError: "Cannot apply \'edge\' padding to empty axis"',
    },
    'nn.functional.pairwise_distance': {
        'forward:int64:function': "result dtype torch.float64, PyTorch's torch.float32",
    },
    'nn.functional.poisson_nll_loss': {
        'error:*:function': "PyTorch raises RuntimeError 'The size of tensor a (5) must match the size of tensor b (4) at non-si', torchlike RuntimeError",
    },
    'nn.functional.prelu': {
        'error:*:function': "PyTorch raises RuntimeError 'Not allow zero-dim input tensor.', torchlike RuntimeError",
    },
    'nn.functional.rrelu': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('Lower bound should be less than or equal to the upper bound')",
        'forward:float32:function': 'values differ',
        'forward:float32:inplace': 'values differ',
        'grad:float64:function': 'values differ',
    },
    'nn.functional.triplet_margin_loss': {
        'forward:int64:function': "result dtype torch.float64, PyTorch's torch.float32",
    },
    'nn.functional.triplet_margin_with_distance_loss': {
        'forward:float32:function': "torchlike raises RecursionError: 'maximum recursion depth exceeded while calling a Python object'",
        'forward:int64:function': "torchlike raises RecursionError: 'maximum recursion depth exceeded while calling a Python object'",
        'grad:float64:function': "torchlike raises RecursionError: 'maximum recursion depth exceeded in __subclasscheck__'",
    },
    'nn.functional.unfold': {
        'forward:bool:function': "torchlike raises ZeroDivisionError: 'integer modulo by zero'",
        'forward:float32:function': "torchlike raises ZeroDivisionError: 'integer modulo by zero'",
        'grad:float64:function': "torchlike raises ZeroDivisionError: 'integer modulo by zero'",
    },
    'nonzero_static': {
        '*': 'torchlike lacks torchlike.nonzero_static',
    },
    'norm': {
        'grad:float64:function': 'grad[0]: None (NoneType) vs tensor([[0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.],\n        [0.,',
    },
    'normal': {
        'grad:float64:function': "torchlike raises AssertionError: '0 differentiable outputs, PyTorch has 1'",
    },
    'ormqr': {
        '*': 'torchlike lacks torchlike.ormqr',
    },
    'pca_lowrank': {
        'forward:float32:function': "torchlike raises NotAvailable: 'torch.pca_lowrank is not available in torchlike yet'",
        'grad:float64:function': "torchlike raises NotAvailable: 'torch.pca_lowrank is not available in torchlike yet'",
    },
    'permute_copy': {
        '*': 'torchlike lacks torchlike.permute_copy',
    },
    'polar': {
        'error:*:function': 'PyTorch raises TypeError "polar(): argument \'angle\' (position 2) must be Tensor, not int", torchlike AttributeError',
        'grad:float64:function': "torchlike raises AssertionError: '0 differentiable outputs, PyTorch has 1'",
    },
    'polygamma.polygamma_n_0': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
        'forward:float32:function': 'values differ',
        'forward:float32:inplace': 'values differ',
        'forward:float32:method': 'values differ',
        'grad:float64:function': 'values differ',
    },
    'polygamma.polygamma_n_1': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
        'forward:float32:function': 'values differ',
        'forward:float32:inplace': 'values differ',
        'forward:float32:method': 'values differ',
        'grad:float64:function': 'values differ',
    },
    'polygamma.polygamma_n_2': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
        'forward:float32:function': 'values differ',
        'forward:float32:inplace': 'values differ',
        'forward:float32:method': 'values differ',
        'grad:float64:function': 'values differ',
    },
    'polygamma.polygamma_n_3': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
        'forward:float32:function': 'values differ',
        'forward:float32:inplace': 'values differ',
        'forward:float32:method': 'values differ',
        'grad:float64:function': 'values differ',
    },
    'polygamma.polygamma_n_4': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
        'forward:float32:function': 'values differ',
        'forward:float32:inplace': 'values differ',
        'forward:float32:method': 'values differ',
        'grad:float64:function': 'values differ',
    },
    'pow': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('pow() received an invalid combination of arguments - got (int, int), b')",
    },
    'put': {
        'forward:bool:function': "torchlike raises TypeError: 'add does not accept dtype bool at position 0. Accepted dtypes at position 0 are '",
        'forward:bool:inplace': "torchlike raises TypeError: 'add does not accept dtype bool at position 0. Accepted dtypes at position 0 are '",
        'forward:bool:method': "torchlike raises TypeError: 'add does not accept dtype bool at position 0. Accepted dtypes at position 0 are '",
    },
    'remainder': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('remainder() received an invalid combination of arguments - got (int, i')",
    },
    'renorm': {
        'error:*:function': "torchlike does not raise PyTorch's RuntimeError ('renorm: input needs at least 2 dimensions, got 0 dimensions')",
    },
    'resize_as_': {
        'forward:bool:function': 'result: torch gave tensor([[[False,  True, False,  True, False], |          [ True, False,  True, Fa',
        'forward:float32:function': 'result: torch gave tensor([[[ 1.9518e+00, -7.3288e+00, -7.7054e+00,  6.7188e+00, -3.1869e+00], |    ',
        'forward:int64:function': 'result: torch gave tensor([[[-6,  9, -2, -5,  2], |          [ 7,  0,  6,  1, -3],          [ 3,  0,',
    },
    'roll': {
        'error:*:function': "PyTorch raises RuntimeError '`shifts` required', torchlike RuntimeError",
    },
    'scatter': {
        'forward:bool:function': 'result: torch gave tensor([[ True,  True, False,  True, False], |         [False, False,  True,  Tru',
        'forward:bool:inplace': 'result: torch gave tensor([[ True,  True, False,  True, False], |         [False, False,  True,  Tru',
        'forward:bool:method': 'result: torch gave tensor([[ True,  True, False,  True, False], |         [False, False,  True,  Tru',
    },
    'scatter_add': {
        'forward:bool:function': 'result: torch gave tensor([[ True,  True, False,  True, False], |         [False, False,  True,  Tru',
        'forward:bool:inplace': 'result: torch gave tensor([[ True,  True, False,  True, False], |         [False, False,  True,  Tru',
        'forward:bool:method': 'result: torch gave tensor([[ True,  True, False,  True, False], |         [False, False,  True,  Tru',
    },
    'scatter_reduce.prod': {
        'forward:bool:function': 'result: torch gave tensor([[ True,  True,  True, False,  True], |         [ True,  True, False, Fals',
        'forward:bool:inplace': 'result: torch gave tensor([[ True,  True,  True, False,  True], |         [ True,  True, False, Fals',
        'forward:bool:method': 'result: torch gave tensor([[ True,  True,  True, False,  True], |         [ True,  True, False, Fals',
    },
    'scatter_reduce.sum': {
        'forward:bool:function': 'result: torch gave tensor([[ True,  True,  True, False,  True], |         [ True,  True, False, Fals',
        'forward:bool:inplace': 'result: torch gave tensor([[ True,  True,  True, False,  True], |         [ True,  True, False, Fals',
        'forward:bool:method': 'result: torch gave tensor([[ True,  True,  True, False,  True], |         [ True,  True, False, Fals',
    },
    'sgn': {
        'harness:*:': "RuntimeError(' Cannot convert a ZeroTensor to numpy. Set force=True if you need the zero array.')",
    },
    'signal.windows.bartlett': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.blackman': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.cosine': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.exponential': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.gaussian': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.general_cosine': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.general_hamming': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.hamming': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.hann': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.kaiser': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'signal.windows.nuttall': {
        'error:*:function': 'input conversion raised NotAvailable: torch.sparse_coo is not available in torchlike yet',
    },
    'slice': {
        '*': 'torchlike lacks torch._ops.aten',
    },
    'sort': {
        'forward:bool:function': 'values differ',
        'forward:bool:method': 'values differ',
    },
    'sparse.mm.reduce': {
        '*': 'torchlike lacks torch._C._sparse',
    },
    'sparse.sampled_addmm': {
        '*': 'torchlike lacks torch._C._sparse',
    },
    'special.airy_ai': {
        '*': 'torchlike lacks torchlike.special.airy_ai',
    },
    'special.bessel_j0': {
        '*': 'torchlike lacks torchlike.special.bessel_j0',
    },
    'special.bessel_j1': {
        '*': 'torchlike lacks torchlike.special.bessel_j1',
    },
    'special.bessel_y0': {
        '*': 'torchlike lacks torchlike.special.bessel_y0',
    },
    'special.bessel_y1': {
        '*': 'torchlike lacks torchlike.special.bessel_y1',
    },
    'special.chebyshev_polynomial_t': {
        '*': 'torchlike lacks torchlike.special.chebyshev_polynomial_t',
    },
    'special.chebyshev_polynomial_u': {
        '*': 'torchlike lacks torchlike.special.chebyshev_polynomial_u',
    },
    'special.chebyshev_polynomial_v': {
        '*': 'torchlike lacks torchlike.special.chebyshev_polynomial_v',
    },
    'special.chebyshev_polynomial_w': {
        '*': 'torchlike lacks torchlike.special.chebyshev_polynomial_w',
    },
    'special.hermite_polynomial_h': {
        '*': 'torchlike lacks torchlike.special.hermite_polynomial_h',
    },
    'special.hermite_polynomial_he': {
        '*': 'torchlike lacks torchlike.special.hermite_polynomial_he',
    },
    'special.laguerre_polynomial_l': {
        '*': 'torchlike lacks torchlike.special.laguerre_polynomial_l',
    },
    'special.legendre_polynomial_p': {
        '*': 'torchlike lacks torchlike.special.legendre_polynomial_p',
    },
    'special.modified_bessel_k0': {
        '*': 'torchlike lacks torchlike.special.modified_bessel_k0',
    },
    'special.modified_bessel_k1': {
        '*': 'torchlike lacks torchlike.special.modified_bessel_k1',
    },
    'special.polygamma.special_polygamma_n_0': {
        'forward:bool:function': 'values differ',
        'forward:float32:function': 'values differ',
        'grad:float64:function': 'values differ',
    },
    'special.scaled_modified_bessel_k0': {
        '*': 'torchlike lacks torchlike.special.scaled_modified_bessel_k0',
    },
    'special.scaled_modified_bessel_k1': {
        '*': 'torchlike lacks torchlike.special.scaled_modified_bessel_k1',
    },
    'special.shifted_chebyshev_polynomial_t': {
        '*': 'torchlike lacks torchlike.special.shifted_chebyshev_polynomial_t',
    },
    'special.shifted_chebyshev_polynomial_u': {
        '*': 'torchlike lacks torchlike.special.shifted_chebyshev_polynomial_u',
    },
    'special.shifted_chebyshev_polynomial_v': {
        '*': 'torchlike lacks torchlike.special.shifted_chebyshev_polynomial_v',
    },
    'special.shifted_chebyshev_polynomial_w': {
        '*': 'torchlike lacks torchlike.special.shifted_chebyshev_polynomial_w',
    },
    'special.xlog1py': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('special_xlog1py() received an invalid combination of arguments - got (')",
    },
    'special.zeta': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('special_zeta() received an invalid combination of arguments - got (int')",
    },
    'split_with_sizes_copy': {
        '*': 'torchlike lacks torchlike.split_with_sizes_copy',
    },
    'squeeze_copy': {
        '*': 'torchlike lacks torchlike.squeeze_copy',
    },
    'stft': {
        '*': 'torchlike lacks torchlike.stft',
    },
    'sum_to_size': {
        'forward:bool:function': "result dtype torch.bool, PyTorch's torch.int64",
        'forward:bool:method': "result dtype torch.bool, PyTorch's torch.int64",
    },
    'svd_lowrank': {
        'forward:float32:function': "torchlike raises NotAvailable: 'torch.svd_lowrank is not available in torchlike yet'",
        'grad:float64:function': "torchlike raises NotAvailable: 'torch.svd_lowrank is not available in torchlike yet'",
    },
    't_copy': {
        '*': 'torchlike lacks torchlike.t_copy',
    },
    'tensor_split': {
        'forward:bool:function': 'result: torch gave (tensor([[[ True,  True, False,  True, False], |          [False, False,  True,  ',
        'forward:bool:method': 'result: torch gave (tensor([[[ True,  True, False,  True, False], |          [False, False,  True,  ',
        'forward:float32:function': 'result: torch gave (tensor([[[-8.4784, -1.7658, -4.3228, -2.4005, -7.9506], |          [ 3.6116, -8.',
        'forward:float32:method': 'result: torch gave (tensor([[[-8.4784, -1.7658, -4.3228, -2.4005, -7.9506], |          [ 3.6116, -8.',
        'forward:int64:function': 'result: torch gave (tensor([[[-8,  6,  9,  0,  0], |          [ 5,  5,  7,  6,  5],          [ 1, -5',
        'forward:int64:method': 'result: torch gave (tensor([[[-8,  6,  9,  0,  0], |          [ 5,  5,  7,  6,  5],          [ 1, -5',
        'grad:float64:function': 'torchlike raises TypeError: "\'int\' object is not iterable"',
    },
    'to_sparse': {
        'forward:bool:function': "torchlike raises NotAvailable: 'torch.Tensor.to_sparse is not available in torchlike y'",
        'forward:bool:method': 'torchlike lacks Tensor.to_sparse',
        'forward:float32:function': 'result: torch gave tensor(indices=tensor([[0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, ',
        'forward:float32:method': 'torchlike lacks Tensor.to_sparse',
        'forward:int64:function': 'result: torch gave tensor(indices=tensor([[0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, ',
        'forward:int64:method': 'torchlike lacks Tensor.to_sparse',
        'grad:float64:function': "torchlike raises NotAvailable: 'torch.Tensor.to_sparse is not available in torchlike yet'",
    },
    'topk': {
        'forward:int64:function': 'values differ',
        'forward:int64:method': 'values differ',
    },
    'torch.ops.aten._safe_softmax.default': {
        '*': 'torchlike lacks torch._ops.aten',
    },
    'transpose_copy': {
        '*': 'torchlike lacks torchlike.transpose_copy',
    },
    'triangular_solve': {
        '*': 'torchlike lacks torchlike.triangular_solve',
    },
    'unbind': {
        'error:*:function': "PyTorch raises IndexError 'Dimension specified as 0 but tensor has no dimensions', torchlike IndexError",
    },
    'unbind_copy': {
        '*': 'torchlike lacks torchlike.unbind_copy',
    },
    'unfold_copy': {
        '*': 'torchlike lacks torchlike.unfold_copy',
    },
    'unravel_index': {
        '*': 'torchlike lacks torchlike.unravel_index',
    },
    'unsafe_chunk': {
        '*': 'torchlike lacks torchlike.unsafe_chunk',
    },
    'unsafe_split': {
        '*': 'torchlike lacks torchlike.unsafe_split',
    },
    'unsqueeze_copy': {
        '*': 'torchlike lacks torchlike.unsqueeze_copy',
    },
    'view_copy': {
        '*': 'torchlike lacks torchlike.view_copy',
    },
    'vsplit': {
        'error:*:function': "PyTorch raises RuntimeError 'torch.vsplit requires a tensor with at least 2 dimension, but got a te', torchlike ZeroDivisionError",
    },
    'xlogy': {
        'error:*:function': "torchlike does not raise PyTorch's TypeError ('xlogy() received an invalid combination of arguments - got (int, int),')",
    },
}


def for_op(name):
    return STATED.get(name, {})


def matches(key, case):
    parts = key.split(":")
    values = (case.kind, case.dtype, case.variant, str(case.index))
    return all(p in ("*", v) for p, v in zip(parts, values))


def explains(case):
    return any(matches(k, case) for k in for_op(case.op))
