import type { LabelSelector, LabelSelectorRequirement } from '../api/label-selector.js';

type Labels = Readonly<Record<string, string>>;

function requirementHolds(req: LabelSelectorRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, req.key);
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(labels[req.key]!);
    case 'NotIn':
      return !has || !values.includes(labels[req.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/** metav1.LabelSelector semantics: matchLabels AND matchExpressions; an absent or empty selector matches all. */
export function selectorMatches(selector: LabelSelector | undefined, labels: Labels | undefined): boolean {
  const l = labels ?? {};
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    if (l[key] !== value) return false;
  }
  return (selector?.matchExpressions ?? []).every((req) => requirementHolds(req, l));
}

/** The selector in kubectl's string form, for messages (`a=b,c in (d,e),!f`); `<all>` when empty. */
export function formatSelector(selector: LabelSelector | undefined): string {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const req of selector?.matchExpressions ?? []) {
    const values = (req.values ?? []).join(',');
    if (req.operator === 'In') parts.push(`${req.key} in (${values})`);
    else if (req.operator === 'NotIn') parts.push(`${req.key} notin (${values})`);
    else if (req.operator === 'Exists') parts.push(req.key);
    else parts.push(`!${req.key}`);
  }
  return parts.length > 0 ? parts.join(',') : '<all>';
}
