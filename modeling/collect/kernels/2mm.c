/* 2mm (Polybench kind): D = alpha*A*B*C + beta*D.  Usage: 2mm NI NJ NK NL */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_2mm(int ni, int nj, int nk, int nl, double alpha, double beta,
                                                 double *tmp, const double *A, const double *B, const double *C,
                                                 double *D) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      tmp[i * nj + j] = 0.0;
      for (int k = 0; k < nk; k++) tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      D[i * nl + j] *= beta;
      for (int k = 0; k < nj; k++) D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
    }
}

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: 2mm NI NJ NK NL\n"); return 2; }
  int ni = atoi(argv[1]), nj = atoi(argv[2]), nk = atoi(argv[3]), nl = atoi(argv[4]);
  double *A = malloc(sizeof(double) * ni * nk), *B = malloc(sizeof(double) * nk * nj);
  double *C = malloc(sizeof(double) * nj * nl), *D = malloc(sizeof(double) * ni * nl);
  double *tmp = malloc(sizeof(double) * ni * nj);
  for (int i = 0; i < ni * nk; i++) A[i] = (double)(i % 11) / 11.0;
  for (int i = 0; i < nk * nj; i++) B[i] = (double)(i % 13) / 13.0;
  for (int i = 0; i < nj * nl; i++) C[i] = (double)(i % 3) / 3.0;
  for (int i = 0; i < ni * nl; i++) D[i] = (double)(i % 17) / 17.0;
  kernel_2mm(ni, nj, nk, nl, 1.5, 1.2, tmp, A, B, C, D);
  double s = 0;
  for (int i = 0; i < ni * nl; i++) s += D[i];
  printf("%.6g\n", s);
  return 0;
}
