import { approvalBoardContract } from '../../contract/approval-board-contract.js';
import { MemoryApprovalBoard } from '../../../src/governance/approval/approval-memory-board.js';

approvalBoardContract('in this process', async () => {
  const board = new MemoryApprovalBoard();
  return { waiting: board, pressing: board, dispose: () => board.shutdown() };
});
