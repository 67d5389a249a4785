import json, re, math, itertools
V = {"a": 7, "b": -3, "f": 2.5, "s": "Hello, World", "t": "  a b\tc  \n", "xs": [3, 1, 2], "d": {"k": 1, "z": [1, 2]},
     "n": None, "e": "", "words": ["b", "a", "c"], "u": "héllo wörld", "doc": "Question: what?\n\nAnswer: yes",
     "inputs": "Document: some text here\n\nQuestion: Who is it?\n\nmore",
     "ground_truth": [{"f1": {"x": [1, 2], "y": ["a"]}}, {"g": {"p": [True, False]}}],
     "tools": [{"parameters": {"properties": {"q": {"type": "str"}, "o": {"type": "Optional[int]"}}}}],
     "test": "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(2) == 3\n", "entry_point": "inc",
     "mean_score": 3, "human_score": 5, "adherence_score": 0, "score_model_1_ordered_first": 3, "score_model_2_ordered_first": 4,
     "question": "what is this?[SEP]context", "document": "x" * 50, "text": "one two three", "id": 17, "db_id": "cars",
     "table": '{"header": ["a", "b"], "rows": [[1, "x"]]}'}
cases = r'''
a + b
a - b * 2
a / 2
a // 2
b // 2
b % 5
a % -3
-7.5 // 2
-7.5 % 2
7.5 % -2
2 ** 10
2 ** -1
f * 2
a / b
1e16
1e-5
0.1 + 0.2
1/3
round(2.675, 2)
round(2.5)
round(3.5)
round(-0.5)
round(1234.5, -2)
round(7)
int(round((score_model_1_ordered_first+score_model_2_ordered_first)/2))
(mean_score - 1) / 4
(human_score - 1) / 4
mean_score/6
int(adherence_score)
['yes' if adherence_score else 'no']
str(id)
'bird/'+db_id
len(document) <= 6000
len(text.split()) < 543
question.split('[SEP]')[0]
re.search(r"Question:\s(.*)(\n\n|$)", inputs).group(1)
re.search(r"Document:\s(.*)(\n\n|$)", inputs).group(1)
[t for t in re.findall(r"assert.*?(?=\n\s*assert|$)", test.replace("candidate", entry_point), re.DOTALL)]
[{"name": k, "arguments": dict(zip(v.keys(), vals))} for d in ground_truth for k, v in d.items() for vals in itertools.product(*v.values())]
[[p for p, c in tool['parameters']['properties'].items() if 'optional' not in c['type'].lower()] for tool in tools]
s.lower()
s.upper()
s.split(', ')
t.split()
t.strip()
t.lstrip()
t.rstrip()
s.replace('l', 'L')
s.replace('l', 'L', 2)
s.startswith('Hell')
s.endswith(('x', 'ld'))
s.find('o')
s.find('o', 5)
s.find('zz')
s.index('W')
s.count('l')
'-'.join(words)
' '.join(sorted(words))
s.title()
'hello wORLD it\'s'.title()
'hELLO'.capitalize()
'123'.isdigit()
'12a'.isdigit()
'abc'.isalpha()
'a\nb\r\nc\n'.splitlines()
'42'.zfill(5)
'-42'.zfill(5)
s.partition(', ')
s.rsplit(' ', 1)
'a b c d'.split(None, 2)
'  a b c d '.rsplit(None, 2)
'a,,b'.split(',')
u.upper()
len(u)
u[1:4]
u[::-1]
s[-5:]
s[::2]
s[1:-1:3]
xs[-1]
xs[::-1]
xs[1:]
xs + [4]
xs * 2
'ab' * 3
sorted(xs)
sorted(xs, reverse=True)
sorted(words, key=lambda w: -ord(w))
sorted([(1, 'b'), (0, 'z'), (1, 'a')])
sorted(d.items(), key=lambda kv: kv[0], reverse=True)
min(xs)
max(xs)
max(words, key=len)
min([], default=5)
sum(xs)
sum([0.1, 0.2, 0.3])
sum(x * x for x in xs)
any(x > 2 for x in xs)
all(x > 2 for x in xs)
any([])
list(range(5))
list(range(10, 0, -3))
list(enumerate(words, 1))
list(zip(xs, words))
list(map(str, xs))
list(filter(None, [0, 1, '', 'a', None]))
list(reversed(xs))
dict(zip(words, xs))
dict(a=1, b=2)
{k: v for k, v in zip(words, xs) if v > 1}
{x % 2 for x in xs}
[x * y for x in range(3) for y in range(3) if x != y]
[(i, j) for i in range(3) if i for j in range(i)]
tuple(xs)
set([1, 1, 2])
d['k']
d['z'][1]
d.get('k')
d.get('missing', 'dflt')
d.get('missing')
list(d.keys())
list(d.values())
'k' in d
'q' not in d
2 in xs
'lo' in s
n is None
n is not None
a is not None
1 < 2 < 3
1 < 3 < 2
a == 7.0
True + True
not xs
xs and 'yes'
e or 'default'
0 or None
a if a > 5 else b
-a
abs(b)
abs(-2.5)
isinstance(a, int)
isinstance(True, int)
isinstance(f, (int, float))
isinstance(s, str)
isinstance(xs, list)
int('  42 ')
int('-7')
int(3.9)
int(-3.9)
float('1e3')
float(' 2.5 ')
float(3)
str(2.0)
str(1e20)
str(None)
str([1, 'a', None, True, 2.5])
str({'a': (1,), 'b': {1, 2}})
repr('it\'s')
repr("a\"b")
repr('x\ny')
bool('')
bool([0])
ord('A')
chr(97)
f"{a} and {f:.2f}"
f"{s!r}"
f"{a:5d}|{a:<5}|{a:^5}|{a:05}"
f"{f:.1%}"
f"{1234567.891:,.2f}"
f"{a=}"
f"{0.000012345:.3g}"
f"{12345678.0:g}"
f"{255:x} {255:#X} {5:b} {8:o}"
f"{'txt':>6}"
f"{f}"
f"{2.0:.0f}"
f"{1e20:e}"
'{} and {}'.format(1, 'two')
'{0}-{0}'.format('x')
'{name}:{v:.3f}'.format(name='pi', v=3.14159)
'{!r}'.format('q')
'%s is %d' % ('x', 5)
'%.2f%%' % 12.345
'%5s|%-5s|' % ('a', 'b')
json.loads(table)
json.loads(table)['rows'][0]
json.dumps({'b': [1, 2.5, None], 'a': 'é'})
json.dumps([1, (2, 3)], sort_keys=True)
json.dumps({'x': 1}, indent=2)
math.floor(2.7)
math.ceil(2.1)
math.sqrt(16)
math.log(math.e)
math.log(8, 2)
math.exp(0)
math.pow(2, 3)
math.isnan(f)
math.pi
math.inf > 10
re.sub(r'\s+', ' ', t)
re.sub(r'(\w+)@(\w+)', r'\2 at \1', 'me@home you@work')
re.sub(r'(?P<w>o)', r'[\g<w>]', s)
re.sub('a', lambda m: m.group(0).upper(), 'banana')
re.split(r'[,;]\s*', 'a, b;c')
re.split(r'(,)', 'a,b')
re.findall(r'\d+', 'a1b22c333')
re.findall(r'(\w)(\d)', 'a1 b2')
re.findall(r'x*', 'axxb')
re.sub('x*', '-', 'abxd')
re.match(r'\w+', s).group()
re.match(r'World', s)
re.fullmatch(r'[A-Za-z, ]+', s) is not None
re.search(r'(?P<first>\w+), (?P<second>\w+)', s).group('second')
re.search(r'(?P<first>\w+), (?P<second>\w+)', s).groups()
re.search(r'(\w+), (\w+)', s).group(1, 2)
re.search(r'o', s).start()
re.search(r'W(or)', s).end(1)
re.search(r'W(or)', s).span()
re.search(r'(?<=, )\w+', s).group()
re.search(r'hello', s, re.IGNORECASE).group()
re.search(r'^World$', 'Hello\nWorld', re.M).group()
re.search(r'end$', 'the end\n').group()
re.compile(r'l+').findall(s)
re.compile(r'(a)(b)?').match('ac').groups()
re.findall(r'^\w', 'ab\ncd', re.MULTILINE)
re.escape('a.b*c')
list(itertools.product([1, 2], 'ab'))
list(itertools.product([0, 1], repeat=2))
[*xs, *words]
{**d, 'k': 9}
(lambda x, y=2: x * y)(4)
list(map(lambda x, y: x + y, [1, 2], [10, 20]))
xs.index(2)
xs.count(3)
(1, 2) + (3,)
(1,)
divmod(-7, 2)
divmod(7.5, 2)
2 ** 0.5
10 // 3.0
-0.0
float('inf') > 1e308
1 if 'a' < 'b' else 0
[1, 2] < [1, 3]
(1, 'a') == (1, 'a')
{1, 2} == {2, 1}
{1: 'a'}[1.0]
len({'a': 1, 'b': 2})
len(range(0, 10, 3))
5 in range(0, 10, 5)
a & 3, a | 8, a ^ 1, a << 2, a >> 1, ~a
True & False
'a' 'b' f'{a}'
'{:>8.3f}'.format(f)
format(0.5, '.0%')
format(1234, ',')
format(3.14159, '.3')
str(123456789012.0)
str(0.1 * 3)
1e300 * 10 > 1
'x'.join(map(str, range(4)))
s.split(',')[-1].strip().lower()
[w.upper() for w in words if w != 'a']
sorted({'b': 1, 'a': 2})
list({'b': 1, 'a': 2}.items())
max(3, 7, 2)
min('b', 'a')
sum([[1], [2]], [])
any(x for x in [0, '', None])
''.join(reversed('abc'))
[i for i, w in enumerate(words) if w > 'a']
'{0[0]} {1[k]}'.format(xs, d)
'é'.encode if False else 'ok'
'''.strip().split('\n')
errors = r'''
1 / 0
1 // 0
xs[10]
d['nope']
undefined_name
'a' + 1
int('x')
len(5)
s.__class__
__import__('os')
open('x')
eval('1')
getattr(s, 'lower')
[1] < 'a'
(lambda: 1)(2)
re.search('x', s).group()
2 ** 100
{[1]: 2}
'%d' % 'x'
float('abc')
sorted([1, 'a'])
math.sqrt(-1)
'{} {}'.format(1)
x := 5
import os
'''.strip().split('\n')
out = {"vars": V, "ok": [], "err": []}
G = {"re": re, "json": json, "math": math, "itertools": itertools}
def conv(x):
    if isinstance(x, (tuple, list)): return [conv(y) for y in x]
    if isinstance(x, dict): return {str(k): conv(v) for k, v in x.items()}
    if isinstance(x, (set, frozenset)): return sorted(conv(y) for y in x)
    if isinstance(x, (map, filter, zip, enumerate)) or type(x).__name__ in ('dict_keys','dict_values','dict_items','list_reverseiterator','reversed','itertools.product'): return [conv(y) for y in x]
    return x
for c in cases:
    v = eval(c, {**G, **V})
    out["ok"].append([c, conv(v), isinstance(v, set)])
for c in errors:
    try:
        eval(c, {**G, **V})
        out["err"].append([c, "sandbox-only"])
    except BaseException as e:
        out["err"].append([c, type(e).__name__])
json.dump(out, open('python_cases.json', 'w'), indent=1, ensure_ascii=False)
print(len(out["ok"]), len(out["err"]))
