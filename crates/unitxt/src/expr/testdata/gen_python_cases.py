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
'{:^6}|{:*<4}|{:+d}|{: d}'.format('ab', 'x', 5, 5)
'ab'.center(7, '*')
'abc'.center(6)
'ΣΑΣ'.lower()
'straße'.upper()
sorted([('b', 1), ('a', 1), ('c', 0)], key=lambda p: p[1])
sorted([3, 1, 2], key=lambda x: 0, reverse=True)
any(1 / x > 0 for x in [1, 0])
[(lambda y: x + y)(1) for x in range(3)]
[f(2) for f in [lambda x, k=k: x * k for k in range(3)]]
list(x for x in range(3))
sum(1 for w in words if w in 'abc')
{w: len(w) for w in ['aa', 'b']}
[y for x in [[1, 2], [3]] for y in x]
[x for x in range(10) if x % 2 if x % 3]
[(a, b) for a, (b, c) in [(1, (2, 3))]]
'%s' % [1, 2]
'%(a)s-%(b)05.1f' % {'a': 'x', 'b': 2.25}
'%x|%o|%e|%g' % (255, 8, 12345.678, 0.0001)
'%r' % 'q'
f"{'a' if a else 'b'}"
f"{xs[0]}{d['k']}"
f"{f:10.3f}|{f:<10}|{a:>+5}"
f"{a!s:>4}"
f"{3.0}"
f"{1e16}"
f"{-0.0}"
f"{123.456:e}"
f"{0.5:g}|{100000.0:g}|{1000000.0:g}|{1e-5:g}"
f"{2.5:.0f}|{3.5:.0f}"
f"{12:,}|{1234567:_}"
f"{True}|{None}"
f"{0.1:.20f}"
str(1/3)
str(2/3)
str(10/3)
str(1e15 + 0.3)
str(123456789.123456789)
str(5e-324)
str(1.7976931348623157e308)
repr(0.1 * 3)
str(-1.5e-7)
3 * 'ab'
[0] * 3
[] * 5
'abc'[5:10]
'abc'[-10:2]
[1, 2, 3][::-2]
(1, 2, 3)[1:]
list(range(10))[2:8:3]
'abcdef'[::-2]
'abcdef'[4:1:-1]
range(10)[3]
7 // -2
-7 // 2
-7 % 3
7 % -3
-7.0 // 2
5.0 % -2
0.0 % 5
2 ** 63 - 1 if False else 2 ** 62
(-2) ** 3
(-8) ** (1/3) if False else 4 ** 0.5
10 / 4
10 // 4.0
1e308 + 1e308 > 1
True * 3
False - 1
1 == True
hash if False else 'ok'
None == False
[] == []
[1, [2, 3]] == [1, [2, 3]]
(1, 2) < (1, 2, 0)
'a' < 'B'
'Z' < 'a'
'é' > 'z'
'10' < '9'
2 < 2.5 < 3
1 < 2 > 1.5 != 3
not 1 == 2
'' or [] or 0
'a' and 'b' and ''
[1] and [2]
int('0x1f', 16)
int('1_000')
int('  -0012  ')
int(True)
float('-inf') < 0
float('1_0.5')
bool(0.0)
bool('False')
str(True) + str(1)
isinstance(None, int)
isinstance([], (dict, tuple))
isinstance({}, dict)
isinstance(1.0, int)
len([[]])
len('')
max([1, 3, 2], key=lambda x: -x)
max([1, 3, 3.0])
max([3.0, 3])
min((5, 'a'), (5, 'B'))
sorted('hello')
sorted(set('hello'))
sorted([3, 1.5, 2])
sorted([[2, 1], [1, 5], [1, 2]])
sorted(['b', 'A', 'a'], key=str.lower)
list(map(str.upper, ['a', 'b']))
list(map(len, ['aa', 'b']))
list(zip('ab', [1, 2, 3], (True, False)))
list(enumerate('ab'))
dict([('a', 1), ['b', 2]])
dict({'a': 1}, b=2)
{'a': 1, 'a': 2}
{1: 'x', 1.0: 'y', True: 'z'}
sorted({3, 1, 2} - {1})
sorted({1, 2} | {3})
sorted({1, 2} & {2, 3})
sorted({1, 2} ^ {2, 3})
{'a': 1} | {'b': 2}
'a' in ['a', 'b']
('a', 1) in [('a', 1)]
1.0 in [1, 2]
'b' in {'a': 1, 'b': 2}.keys()
2 in {'a': 1, 'b': 2}.values()
('a', 1) in {'a': 1}.items()
'' in 'abc'
'ab\tc d'.split()
'a  b'.split(' ')
''.split()
''.split(',')
'a,b,c'.split(',', 1)
'a,b,c'.rsplit(',', 1)
'  x  '.strip()
'xxhixx'.strip('x')
'abc'.lstrip('ba')
'..a..'.rstrip('.')
'hello world'.capitalize()
'HELLO'.lower().title()
'o\'neil mc-donald 3rd'.title()
'Hello'.swapcase()
'Hi'.startswith('')
'abc'.startswith('b', 1)
'abc'.endswith('b', 0, 2)
'banana'.count('an')
'banana'.count('a', 2)
'banana'.find('na', 3)
'banana'.rfind('na')
'banana'.replace('a', '')
'ab'.replace('', '-')
'aaa'.replace('aa', 'b')
'aaaa'.replace('aa', 'b')
s.replace('l', 'L', 0)
s.replace('l', 'L', -1)
u.replace('ö', 'o')
u.replace('l', 'LL', 1)
'ab'.replace('', '-', 2)
'abc'.replace('abc', '')
s.replace('xyz', 'q')
'a\tb'.splitlines()
'x\r\ny\rz\x0bw\x1cv'.splitlines()
'a\nb'.splitlines(True)
' '.join([])
','.join('abc')
'abc'.partition('x')
'a=b=c'.rpartition('=')
'٣'.isdigit()
'abc1'.isalpha()
'   '.isspace()
'ABC'.isupper()
'aBc'.islower()
'x'.zfill(3)
'3.14'.zfill(6)
'{}'.format([1, 'a'])
'{:>5}'.format(1.5)
'{:.2e}'.format(123456)
'{:08.3f}'.format(-3.14159)
'{:%}'.format(0.25)
'{:.1f}'.format(0.05)
'{:.1f}'.format(0.25)
'{:.2f}'.format(1.005)
'{{x}}'.format()
'{a[0]}'.format(a=[5])
json.dumps('é\n"q"')
json.dumps('é', ensure_ascii=False)
json.dumps({'a': [1, {'b': None}]}, indent=2)
json.dumps({2: 'x', 'a': True})
json.dumps(1.0)
json.dumps([1e16, 0.1, -0.0])
json.loads('[1, 2.5, "x", null, true, {"a": {}}]')
json.loads('"\\u00e9"')
json.loads('{"a": 1, "b": 2, "a": 3}')
re.findall(r'\bw\w+', 'what a wonderful world')
re.findall(r'(a)|(b)', 'ab')
re.findall(r'[^\W\d]+', 'ab12cd')
re.sub(r'(\d)', r'<\1>', 'a1b2', count=1)
re.sub(r'^', '> ', 'a\nb', flags=re.M)
re.sub(r'$', '!', 'a\nb\n')
re.sub(r'\n', ' ', 'a\nb')
re.sub(r'(?i)HELLO', 'bye', 'Hello hello')
re.sub(r'a|', '-', 'bab')
re.split(r'\s+', ' a b ')
re.split(r'x*', 'axbc')
re.split(r',', 'a,b,c', maxsplit=1)
re.search(r'(\d+)-(\d+)?', 'tel 12-').groups()
re.search(r'(\d+)-(\d+)?', 'tel 12-').groups('0')
re.search(r'(?P<y>\d{4})-(?P<m>\d\d)', 'on 2024-05-01').groupdict()
re.search(r'é(.)', 'café au lait').start(1)
re.search(r'é(.)', 'café au lait').span(1)
re.match(r'(a)(x)?', 'ab').start(2)
re.search(r'(\w+)\s\1', 'hello hello world').group(1)
re.search(r'(?P<w>\w+) (?P=w)', 'bye bye').group()
re.search(r'\Aab\Z', 'ab') is not None
re.search(r'a.c', 'a\nc', re.S).group()
re.search(r'a.c', 'a\nc') is None
re.search(r'[[]x', 'a[x').group()
re.search(r'[]a]+', ']a]b').group()
re.search(r'\d+(?!px)', '100px 200em').group()
re.search(r'(?<!\$)\b\d+', '$5 and 7').group()
re.fullmatch(r'\d+', '123\n') is None
re.match(r'\d+$', '123\n').group()
re.compile(r'\d').pattern
[m.group() for m in re.finditer(r'\d', 'a1b2')]
re.search(r'x', 'abc') is None
re.findall(r'\s', 'a b\u00a0c')
re.search(r'(?x) a  b  # comment', 'ab').group()
math.floor(-2.5)
math.ceil(-2.5)
math.floor(3)
math.log10(1000)
math.log2(8)
math.sqrt(2)
math.exp(1)
math.isinf(1e308 * 10)
math.trunc(-3.7)
math.fabs(-2)
math.isclose(0.1 + 0.2, 0.3)
list(itertools.product('ab', repeat=2))
list(itertools.product())
list(itertools.product([1], []))
[x for x in itertools.product([1, 2], [3])]
round(0.5)
round(1.5)
round(-1.5)
round(2.5, 0)
round(0.125, 2)
round(0.375, 2)
round(1e15)
round(15, -1)
round(25, -1)
round(-25, -1)
round(3.14159, 3)
abs(-0.0)
int(-0.5)
divmod(-7, -2)
pow(2, 5)
pow(2, -2)
chr(0x1F600)
ord('é')
repr('é\x01\u200b')
repr([1.0, 'a', (1,), {}])
repr({'a': None})
repr(set())
repr(())
repr(range(3))
repr(range(1, 5, 2))
str((1, 'a'))
str({1: 2.5})
str([True, None, 1e-7, 1e100])
xs.index(3)
(1, 2, 1).count(1)
['a', 'b'].index('b', 1)
d.get('z')[0]
{'a': {'b': [1, 2]}}['a']['b'][-1]
len(d.items())
list(reversed(range(3)))
list(reversed({'a': 1, 'b': 2}))
next if False else 'ok'
[*range(3)]
(*xs, 9)
{*xs, 9} == {1, 2, 3, 9}
dict(**{'a': 1}, b=2)
(lambda x: (lambda y: x + y))(1)(2)
sorted(xs, key=lambda v: (v % 2, -v))
[x if x > 1 else -x for x in xs]
[x for x in xs if x > 1 and x < 3 or x == 1]
{x: [y for y in range(x)] for x in range(3)}
"".join(c for c in 'a1b2' if c.isdigit())
sum([1.5, 2], 0.5)
sum([True, True])
sum(range(101))
any(x == 2 for x in xs)
all([])
all(x for x in [1, 'a', [0]])
max('abc')
min([4, 2], default=0)
max([], key=len, default=None)
'%.3s' % 'abcdef'
'%5.1f%%' % 99.44
'%-6d|' % 42
'%+d %+d' % (5, -5)
'%05d' % -42
'%c%c' % ('a', 98)
'%s and %s' % (1, (2,))
'%d' % 3.9
'%i' % True
'%.2e' % 0.000123
'%g' % 1e-10
'%g' % 123456789
'%#x' % 255
'%s' % None
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
