# eplb-plan | a2a-layout --phy2log -: route logical ids through a plan's
# replicas (vLLM's rule) and lay out the physical experts; the trace is
# the file, the plan comes on stdin.
set -e
printf '90,132,40,61,104,165,39,4,73,56,183,86\n' > loads.csv
cat > ids.csv <<'CSV'
# name=ids shape=2,3,2 dtype=i64
5,10
5,1
-1,5
10,5
0,11
5,5
CSV
eplb-plan -a deepseek -r 16 -G 8 -n 2 -g 4 -f csv --emit phy2log loads.csv
eplb-plan -a deepseek -r 16 -G 8 -n 2 -g 4 loads.csv |
    a2a-layout --phy2log - --emit num_tokens_per_expert -f csv ids.csv
