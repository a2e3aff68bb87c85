# WebSearch flow sizes: the background flows of a production web-search
# cluster, Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Fig. 4,
# at the points the later load-balancing papers (pFabric, CONGA, HPCC)
# tabulate it. Columns: flow size in bytes, cumulative probability;
# run.py/ars-sim interpolate linearly between points. Mean about 1.6 MB.
0 0
10000 0.15
20000 0.20
30000 0.30
50000 0.40
80000 0.53
200000 0.60
1000000 0.70
2000000 0.80
5000000 0.90
10000000 0.97
30000000 1
