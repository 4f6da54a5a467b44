start=0
touch shared-grid-raw.jsonl
while [ $start -lt 5000 ]; do
  python3 shared-grid.py $start 2> err.txt >/dev/null
  n=$(wc -l < shared-grid-raw.jsonl)
  if [ "$n" -le "$start" ]; then
     mlir=$(grep '^@@MLIR' err.txt | tail -1 | sed 's/^@@MLIR //')
     python3 -c "import json,sys; print(json.dumps({'id':'sgrid-%d'%$start,'crash':True,'mlir':sys.argv[1]}))" "$mlir" >> shared-grid-raw.jsonl
  fi
  start=$(wc -l < shared-grid-raw.jsonl)
done
echo done
