/** The schema the archive checks ISDOC documents against, as verdicts name it. */
export const ISDOC_SCHEMA_NAME = 'ISDOC 6.0.2';
