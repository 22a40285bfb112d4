/*
 * kernel_generic.c: the pass for the build's baseline instruction set
 * (SSE2 on amd64; NEON on arm64).
 */
#define GSTPP_KERNEL gstpp_kernel_generic
#include "kernels.h"
