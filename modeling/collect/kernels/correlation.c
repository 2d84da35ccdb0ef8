/* correlation (Polybench kind): the M x M correlation of N samples of M variables; a column whose standard
 * deviation is (near) zero is left unscaled, a data-dependent branch (here every 7th column is constant).
 * Usage: correlation M N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_correlation(int m, int n, double *data, double *corr, double *mean,
                                                         double *stddev) {
  const double eps = 0.1;
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < n; i++) mean[j] += data[i * m + j];
    mean[j] /= n;
  }
  for (int j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (int i = 0; i < n; i++) stddev[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
    stddev[j] = sqrt(stddev[j] / n);
    if (stddev[j] <= eps) stddev[j] = 1.0;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      data[i * m + j] -= mean[j];
      data[i * m + j] /= sqrt((double)n) * stddev[j];
    }
  for (int i = 0; i < m - 1; i++) {
    corr[i * m + i] = 1.0;
    for (int j = i + 1; j < m; j++) {
      corr[i * m + j] = 0.0;
      for (int k = 0; k < n; k++) corr[i * m + j] += data[k * m + i] * data[k * m + j];
      corr[j * m + i] = corr[i * m + j];
    }
  }
  corr[(m - 1) * m + m - 1] = 1.0;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: correlation M N\n"); return 2; }
  int m = atoi(argv[1]), n = atoi(argv[2]);
  double *data = malloc(sizeof(double) * n * m), *corr = malloc(sizeof(double) * m * m);
  double *mean = malloc(sizeof(double) * m), *stddev = malloc(sizeof(double) * m);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) data[i * m + j] = (j % 7 == 0) ? 1.0 : (double)((i * (j + 1)) % 31);
  kernel_correlation(m, n, data, corr, mean, stddev);
  double s = 0;
  for (int i = 0; i < m * m; i++) s += corr[i];
  printf("%.6g\n", s);
  return 0;
}
