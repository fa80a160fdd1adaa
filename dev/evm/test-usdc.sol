// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.26;

/// A minimal ERC-20 standing in for USDC on the local node: 6 decimals, minted by its owner, and
/// a list of blocked addresses (like USDC's blacklist) so that a test can make a transfer revert.
contract TestUsdc {
    string public constant name = "Test USD Coin";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;

    address public immutable owner;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public blocked;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor() {
        owner = msg.sender;
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == owner, "only the owner mints");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function setBlocked(address account, bool isBlocked) external {
        require(msg.sender == owner, "only the owner blocks");
        blocked[account] = isBlocked;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance exceeded");
        allowance[from][msg.sender] = allowed - value;
        move(from, to, value);
        return true;
    }

    function move(address from, address to, uint256 value) private {
        require(!blocked[from] && !blocked[to], "blocked address");
        require(balanceOf[from] >= value, "balance exceeded");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
