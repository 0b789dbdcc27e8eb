/** Message properties the POP path reads and writes (upstream MessageConst, 5.x). */
export const PopMessageConst = {
  /** The receipt handle of a popped message (the client sets it from the response header). */
  PROPERTY_POP_CK: 'POP_CK',
  /** Offset of the checkpoint in the revive queue, as some upstream paths record it. */
  PROPERTY_POP_CK_OFFSET: 'POP_CK_OFFSET',
  /** Time of the first pop; the client sets it when absent and revive keeps it. */
  PROPERTY_FIRST_POP_TIME: '1ST_POP_TIME',
  /** The group whose checkpoint a revive re-put came from (PopReviveService.reviveRetry writes it). */
  PROPERTY_ORIGIN_GROUP: 'ORIGIN_GROUP',
} as const;
