set terminal pngcairo size 960,600 noenhanced
set output 'docs/sheaves-study/memory-cpus-mix.png'
set title "mix: MiB held with the working set live, by CPU count"
set xlabel "CPUs"
set ylabel "MiB held by the caches"
set key outside right top
set grid
set logscale x 2
set logscale y 2
plot "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 0 using 1:2 with linespoints lw 2 pt 1 lc 1 title "lock", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 1 using 1:2 with linespoints lw 2 pt 2 lc 2 title "partial", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 2 using 1:2 with linespoints lw 2 pt 3 lc 3 title "partial/30", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 3 using 1:2 with linespoints lw 2 pt 4 lc 4 title "partial/480", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 4 using 1:2 with linespoints lw 2 pt 5 lc 5 title "sheaves", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 5 using 1:2 with linespoints lw 2 pt 6 lc 6 title "sheaves/4", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 6 using 1:2 with linespoints lw 2 pt 7 lc 7 title "sheaves/8", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 7 using 1:2 with linespoints lw 2 pt 8 lc 8 title "sheaves/16", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 8 using 1:2 with linespoints lw 2 pt 9 lc 9 title "sheaves/32", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 9 using 1:2 with linespoints lw 2 pt 10 lc 10 title "sheaves/64", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 10 using 1:2 with linespoints lw 2 pt 11 lc 11 title "sheaves/128", \
  "docs/sheaves-study/gnuplot/memory-cpus-mix.dat" index 11 using 1:2 with linespoints lw 2 pt 12 lc 12 title "sheaves/linux7"
