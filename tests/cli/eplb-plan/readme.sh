# The README example of deepseek-ai/EPLB from CSV and JSON input; CSV in
# gives CSV out, names included.
set -e
printf '90,132,40,61,104,165,39,4,73,56,183,86\n20,107,104,64,19,197,187,157,172,86,16,27\n' > w.csv
eplb-plan -a deepseek -r 16 -G 8 -n 2 -g 4 --log2phy-width max w.csv | tee from-csv
printf '{"logical_count": [[90,132,40,61,104,165,39,4,73,56,183,86],[20,107,104,64,19,197,187,157,172,86,16,27]]}' > w.json
eplb-plan -a deepseek -r 16 -G 8 -n 2 -g 4 --log2phy-width max w.json |
    tensor-cat -f csv --names phy2log,log2phy,logcnt | cmp - from-csv
echo "JSON input: same plan"
