import { describe, expect, it } from 'vitest';
import { importedModules } from '../../../src/export/python-imports.js';

describe('importedModules', () => {
  it('reads the top-level module of every import form', () => {
    const code = [
      'import pandas as pd, numpy',
      'import matplotlib.pyplot as plt',
      'from sklearn.linear_model import LinearRegression',
      'from scipy import (',
      '    stats,',
      '    optimize)',
      'import os.path',
      'try: import yaml',
      'except ImportError: pass',
      'def f():',
      '    import requests; from bs4 import BeautifulSoup',
      'x = 1; import json',
      'import \\',
      '    seaborn',
    ].join('\n');
    expect(importedModules(code).sort()).toEqual(
      ['bs4', 'json', 'matplotlib', 'numpy', 'os', 'pandas', 'requests', 'scipy', 'seaborn', 'sklearn', 'yaml'].sort(),
    );
  });

  it('does not read imports inside strings, comments or IPython lines, nor relative imports', () => {
    const code = [
      '# import commented',
      's = "import in_string"',
      "t = '''",
      'import in_triple',
      "'''",
      'u = f"{x}" + rb"import raw" ; v = """from in_doc import x"""',
      '!pip install shell_thing',
      '%timeit import magic_thing',
      'from . import sibling',
      'from .pkg import thing',
      'print("a # b"); import real_one  # import not_this',
      'raise ValueError("x") from err',
      'y = [i for i in range(3)]',
      'barimport = 1',
    ].join('\n');
    expect(importedModules(code)).toEqual(['real_one']);
  });

  it('survives unclosed strings and brackets without looping', () => {
    expect(importedModules('x = "unclosed\nimport after_string')).toEqual(['after_string']);
    expect(importedModules('x = (1,\nimport nope')).toEqual([]);
    expect(importedModules('s = """never closed\nimport nope')).toEqual([]);
    expect(importedModules('')).toEqual([]);
  });
});
