set terminal pngcairo size 960,600 noenhanced
set output 'docs/sheaves-study/speed-memory-mix-icount-cpus64.png'
set title "mix, 64 CPUs (icount): speed against memory"
set xlabel "MiB held at the peak (the run's caches)"
set ylabel "instructions per operation"
set key outside right top
set grid
plot "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 0 using 1:2 with points pt 1 ps 1.8 lc 1 title "lock", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 0 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 1 using 1:2 with points pt 2 ps 1.8 lc 2 title "partial", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 1 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 2 using 1:2 with points pt 3 ps 1.8 lc 3 title "partial/30", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 2 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 3 using 1:2 with points pt 4 ps 1.8 lc 4 title "partial/480", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 3 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 4 using 1:2 with points pt 5 ps 1.8 lc 5 title "sheaves", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 4 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 5 using 1:2 with points pt 6 ps 1.8 lc 6 title "sheaves/4", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 5 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 6 using 1:2 with points pt 7 ps 1.8 lc 7 title "sheaves/8", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 6 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 7 using 1:2 with points pt 8 ps 1.8 lc 8 title "sheaves/16", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 7 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 8 using 1:2 with points pt 9 ps 1.8 lc 9 title "sheaves/32", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 8 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 9 using 1:2 with points pt 10 ps 1.8 lc 10 title "sheaves/64", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 9 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 10 using 1:2 with points pt 11 ps 1.8 lc 11 title "sheaves/128", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 10 using 1:2:3 with labels offset 1,0.7 notitle, \
  "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 11 using 1:2 with points pt 12 ps 1.8 lc 12 title "sheaves/linux7", "docs/sheaves-study/gnuplot/speed-memory-mix-icount-cpus64.dat" index 11 using 1:2:3 with labels offset 1,0.7 notitle
