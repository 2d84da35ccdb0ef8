/* covariance (Polybench kind): the M x M covariance of N samples of M variables.  Usage: covariance M N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_covariance(int m, int n, double *data, double *cov, double *mean) {
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < n; i++) mean[j] += data[i * m + j];
    mean[j] /= n;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) data[i * m + j] -= mean[j];
  for (int i = 0; i < m; i++)
    for (int j = i; j < m; j++) {
      cov[i * m + j] = 0.0;
      for (int k = 0; k < n; k++) cov[i * m + j] += data[k * m + i] * data[k * m + j];
      cov[i * m + j] /= (n - 1.0);
      cov[j * m + i] = cov[i * m + j];
    }
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: covariance M N\n"); return 2; }
  int m = atoi(argv[1]), n = atoi(argv[2]);
  double *data = malloc(sizeof(double) * n * m), *cov = malloc(sizeof(double) * m * m);
  double *mean = malloc(sizeof(double) * m);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) data[i * m + j] = (double)((i * j) % 29) / 29.0;
  kernel_covariance(m, n, data, cov, mean);
  double s = 0;
  for (int i = 0; i < m * m; i++) s += cov[i];
  printf("%.6g\n", s);
  return 0;
}
