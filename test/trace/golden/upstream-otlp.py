# Independent re-implementation (Python) of the original lait's to_otlp_json (src/trace/otlp.rs at 3e368ef),
# used once to produce upstream.otlp.json from upstream.jsonl: python3 upstream-otlp.py upstream.jsonl > upstream.otlp.json
import hashlib, json, re, datetime, sys
src = open(sys.argv[1],'rb').read()
trace_id = hashlib.sha256(src).hexdigest()[:32]
def span_id(seq): return hashlib.sha256(trace_id.encode()+seq.to_bytes(8,'big')).hexdigest()[:16]
def nanos(t):
    m = re.match(r'(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z$', t)
    d = datetime.datetime(*map(int, m.groups()[:6]), tzinfo=datetime.timezone.utc)
    frac = int((m.group(7) or '').ljust(9,'0')[:9])
    return str(int(d.timestamp())*10**9 + frac)
def anyv(v):
    if isinstance(v,str): return {"stringValue":v}
    if isinstance(v,bool): return {"boolValue":v}
    if v is None: return {"stringValue":""}
    if isinstance(v,int): return {"intValue":str(v)}
    if isinstance(v,float): return {"doubleValue":v}
    return {"stringValue":json.dumps(v,separators=(',',':'),ensure_ascii=False)}
def kv(k,v): return {"key":k,"value":anyv(v)}
events=[json.loads(l) for l in src.decode().split('\n') if l.strip()]
events.sort(key=lambda e:e['seq'])
spans=[]
for e in events:
    attrs=[kv("gen_ai.operation.name",e['operation']),kv("lait.label",e['label']),kv("lait.seq",e['seq'])]+[kv(k,v) for k,v in e['attributes'].items()]
    spans.append({"traceId":trace_id,"spanId":span_id(e['seq']),"name":e['operation']+" "+e['label'],"kind":1 if e['operation']=="compact" else 3,
      "startTimeUnixNano":nanos(e['start']),"endTimeUnixNano":nanos(e['end']),"attributes":attrs})
body={"resourceSpans":[{"resource":{"attributes":[kv("service.name","svc")]},"scopeSpans":[{"scope":{"name":"lait","version":"0.1.0"},"spans":spans}]}]}
sys.stdout.write(json.dumps(body,separators=(',',':'),ensure_ascii=False))
