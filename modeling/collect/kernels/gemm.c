/* gemm (Polybench kind): C = alpha*A*B + beta*C.  Usage: gemm NI NJ NK */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                                                  double *C, const double *A, const double *B) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++) C[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++) C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
  }
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: gemm NI NJ NK\n"); return 2; }
  int ni = atoi(argv[1]), nj = atoi(argv[2]), nk = atoi(argv[3]);
  double *A = malloc(sizeof(double) * ni * nk), *B = malloc(sizeof(double) * nk * nj);
  double *C = malloc(sizeof(double) * ni * nj);
  for (int i = 0; i < ni * nk; i++) A[i] = (double)(i % 7) / 7.0;
  for (int i = 0; i < nk * nj; i++) B[i] = (double)(i % 5) / 5.0;
  for (int i = 0; i < ni * nj; i++) C[i] = 1.0;
  kernel_gemm(ni, nj, nk, 1.5, 1.2, C, A, B);
  double s = 0;
  for (int i = 0; i < ni * nj; i++) s += C[i];
  printf("%.6g\n", s);
  return 0;
}
