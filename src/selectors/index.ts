export { SelectorError, type SelectorKind } from './errors.ts';
export {
  everythingLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  nothingLabelSelector,
  parseLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type Labels,
  type LabelSelector,
  type LabelSelectorObject,
  type LabelSelectorOperator,
  type LabelSelectorRequirementObject,
} from './labels.ts';
export {
  escapeFieldValue,
  everythingFieldSelector,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
  type FieldGetter,
  type FieldOperator,
  type FieldRequirement,
  type FieldSelector,
} from './fields.ts';
