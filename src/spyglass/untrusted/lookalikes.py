"""Characters that read as the letters of the envelope's tag (generated: do not edit).

Written by ``scripts/lookalikes.py`` from Unicode compatibility decomposition (marks
dropped) and the confusables of Unicode Technical Standard #39;
``spyglass.untrusted.envelope`` folds text with it before looking for the tag.
"""

from __future__ import annotations

#: The Unicode version of the decomposition data the table was written from.
UNICODE_VERSION = "14.0.0"

#: What a character reads as -> every non-ASCII character that reads so.
READS_AS: dict[str, str] = {
    " ": (
        "\u00a0\u00a8\u00af\u00b4\u00b8\u02d8\u02d9\u02da\u02db\u02dc\u02dd\u037a\u0384\u0385"
        "\u1680\u1fbd\u1fbf\u1fc0\u1fc1\u1fcd\u1fce\u1fcf\u1fdd\u1fde\u1fdf\u1fed\u1fee\u1ffd"
        "\u1ffe\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2017\u202f"
        "\u203e\u205f\u3000\u309b\u309c\ufc5e\ufc5f\ufc60\ufc61\ufc62\ufc63\ufe49\ufe4a\ufe4b"
        "\ufe4c\ufe70\ufe72\ufe74\ufe76\ufe78\ufe7a\ufe7c\ufe7e\uffe3"
    ),
    "-": "\u02d7\u06d4\u2010\u2011\u2012\u2013\u2043\u2212\u2796\u2cba\ufe58\ufe63\uff0d",
    ".": "\u0660\u06f0\u0701\u0702\u2024\ua4f8\ua60e\ufe52\uff0e\U00010a50\U0001d16d",
    "..": "\u2025\ufe30",
    "...": "\u2026\ufe19",
    "D": (
        "\u010e\u13a0\u15de\u15ea\u1d30\u1e0a\u1e0c\u1e0e\u1e10\u1e12\u2145\u216e\u24b9\ua4d3"
        "\uff24\U0001d403\U0001d437\U0001d46b\U0001d49f\U0001d4d3\U0001d507\U0001d53b"
        "\U0001d56f\U0001d5a3\U0001d5d7\U0001d60b\U0001d63f\U0001d673\U0001f133"
    ),
    "E": (
        "\u00c8\u00c9\u00ca\u00cb\u0112\u0114\u0116\u0118\u011a\u0204\u0206\u0228\u0395\u0415"
        "\u13ac\u1d31\u1e14\u1e16\u1e18\u1e1a\u1e1c\u1eb8\u1eba\u1ebc\u1ebe\u1ec0\u1ec2\u1ec4"
        "\u1ec6\u2130\u22ff\u24ba\u2d39\ua4f0\uff25\U00010286\U000118a6\U000118ae\U0001d404"
        "\U0001d438\U0001d46c\U0001d4d4\U0001d508\U0001d53c\U0001d570\U0001d5a4\U0001d5d8"
        "\U0001d60c\U0001d640\U0001d674\U0001d6ac\U0001d6e6\U0001d720\U0001d75a\U0001d794"
        "\U0001f134"
    ),
    "L": (
        "\u0139\u013b\u013d\u13de\u14aa\u1d38\u1e36\u1e38\u1e3a\u1e3c\u2112\u216c\u24c1\u2cd0"
        "\ua4e1\uff2c\U0001041b\U00010526\U000118a3\U000118b2\U00016f16\U0001d22a\U0001d40b"
        "\U0001d43f\U0001d473\U0001d4db\U0001d50f\U0001d543\U0001d577\U0001d5ab\U0001d5df"
        "\U0001d613\U0001d647\U0001d67b\U0001f13b"
    ),
    "LTD": "\u32cf",
    "N": (
        "\u00d1\u0143\u0145\u0147\u01f8\u039d\u1d3a\u1e44\u1e46\u1e48\u1e4a\u2115\u24c3\u2c9a"
        "\ua4e0\uff2e\U00010513\U0001d40d\U0001d441\U0001d475\U0001d4a9\U0001d4dd\U0001d511"
        "\U0001d579\U0001d5ad\U0001d5e1\U0001d615\U0001d649\U0001d67d\U0001d6b4\U0001d6ee"
        "\U0001d728\U0001d762\U0001d79c\U0001f13d"
    ),
    "No": "\u2116",
    "O": (
        "\u00d2\u00d3\u00d4\u00d5\u00d6\u014c\u014e\u0150\u01a0\u01d1\u01ea\u01ec\u020c\u020e"
        "\u022a\u022c\u022e\u0230\u039f\u041e\u0555\u07c0\u09e6\u0b20\u0b66\u12d0\u1d3c\u1e4c"
        "\u1e4e\u1e50\u1e52\u1ecc\u1ece\u1ed0\u1ed2\u1ed4\u1ed6\u1ed8\u1eda\u1edc\u1ede\u1ee0"
        "\u1ee2\u24c4\u2c9e\u2d54\u3007\ua4f3\uff2f\U00010292\U000102ab\U00010404\U000104c2"
        "\U00010516\U000114d0\U000118b5\U000118e0\U0001d40e\U0001d442\U0001d476\U0001d4aa"
        "\U0001d4de\U0001d512\U0001d546\U0001d57a\U0001d5ae\U0001d5e2\U0001d616\U0001d64a"
        "\U0001d67e\U0001d6b6\U0001d6f0\U0001d72a\U0001d764\U0001d79e\U0001d7ce\U0001d7d8"
        "\U0001d7e2\U0001d7ec\U0001d7f6\U0001f13e\U0001fbf0"
    ),
    "P": (
        "\u03a1\u0420\u13e2\u146d\u1d3e\u1e54\u1e56\u2119\u24c5\u2ca2\ua4d1\uff30\U00010295"
        "\U0001d40f\U0001d443\U0001d477\U0001d4ab\U0001d4df\U0001d513\U0001d57b\U0001d5af"
        "\U0001d5e3\U0001d617\U0001d64b\U0001d67f\U0001d6b8\U0001d6f2\U0001d72c\U0001d766"
        "\U0001d7a0\U0001f13f"
    ),
    "PR": "\u33da",
    "PTE": "\u3250",
    "R": (
        "\u0154\u0156\u0158\u01a6\u0210\u0212\u13a1\u13d2\u1587\u1d3f\u1e58\u1e5a\u1e5c\u1e5e"
        "\u211b\u211c\u211d\u24c7\ua4e3\uff32\U000104b4\U00016f35\U0001d216\U0001d411"
        "\U0001d445\U0001d479\U0001d4e1\U0001d57d\U0001d5b1\U0001d5e5\U0001d619\U0001d64d"
        "\U0001d681\U0001f12c\U0001f141"
    ),
    "Rs": "\u20a8",
    "S": (
        "\u015a\u015c\u015e\u0160\u0218\u0405\u054f\u13d5\u13da\u1e60\u1e62\u1e64\u1e66\u1e68"
        "\u24c8\ua4e2\uff33\U00010296\U00010420\U00016f3a\U0001d412\U0001d446\U0001d47a"
        "\U0001d4ae\U0001d4e2\U0001d516\U0001d54a\U0001d57e\U0001d5b2\U0001d5e6\U0001d61a"
        "\U0001d64e\U0001d682\U0001f142"
    ),
    "SD": "\U0001f14c",
    "SS": "\U0001f14d",
    "T": (
        "\u0162\u0164\u021a\u03a4\u0422\u13a2\u1d40\u1e6a\u1e6c\u1e6e\u1e70\u22a4\u24c9\u27d9"
        "\u2ca6\ua4d4\uff34\U00010297\U000102b1\U00010315\U000118bc\U00016f0a\U0001d413"
        "\U0001d447\U0001d47b\U0001d4af\U0001d4e3\U0001d517\U0001d54b\U0001d57f\U0001d5b3"
        "\U0001d5e7\U0001d61b\U0001d64f\U0001d683\U0001d6bb\U0001d6f5\U0001d72f\U0001d769"
        "\U0001d7a3\U0001f143\U0001f768"
    ),
    "TEL": "\u2121",
    "U": (
        "\u00d9\u00da\u00db\u00dc\u0168\u016a\u016c\u016e\u0170\u0172\u01af\u01d3\u01d5\u01d7"
        "\u01d9\u01db\u0214\u0216\u054d\u1200\u144c\u1d41\u1e72\u1e74\u1e76\u1e78\u1e7a\u1ee4"
        "\u1ee6\u1ee8\u1eea\u1eec\u1eee\u1ef0\u222a\u22c3\u24ca\ua4f4\uff35\U000104ce"
        "\U000118b8\U00016f42\U0001d414\U0001d448\U0001d47c\U0001d4b0\U0001d4e4\U0001d518"
        "\U0001d54c\U0001d580\U0001d5b4\U0001d5e8\U0001d61c\U0001d650\U0001d684\U0001f144"
    ),
    "_": "\u07fa\ufe33\ufe34\ufe4d\ufe4e\ufe4f\uff3f",
    "d": (
        "\u010f\u0110\u0111\u018a\u018b\u018c\u01c5\u01f2\u0221\u0256\u0257\u0501\u13e7\u146f"
        "\u1d05\u1d48\u1d6d\u1d81\u1d91\u1e0b\u1e0d\u1e0f\u1e11\u1e13\u2146\u217e\u249f\u24d3"
        "\ua4d2\ua7c7\ua7c8\uff44\U0001d41d\U0001d451\U0001d485\U0001d4b9\U0001d4ed\U0001d521"
        "\U0001d555\U0001d589\U0001d5bd\U0001d5f1\U0001d625\U0001d659\U0001d68d\U0001f113"
        "\U0001f153\U0001f173\U0001f1a5\U0001f1e9\U000e0044\U000e0064"
    ),
    "dl": "\u3397",
    "e": (
        "\u00e8\u00e9\u00ea\u00eb\u0113\u0115\u0117\u0119\u011b\u0205\u0207\u0229\u0246\u0247"
        "\u0435\u04bd\u1d07\u1d49\u1d92\u1e15\u1e17\u1e19\u1e1b\u1e1d\u1eb9\u1ebb\u1ebd\u1ebf"
        "\u1ec1\u1ec3\u1ec5\u1ec7\u2091\u212e\u212f\u2147\u24a0\u24d4\u2c78\uab32\uab34\uff45"
        "\U0001d41e\U0001d452\U0001d486\U0001d4ee\U0001d522\U0001d556\U0001d58a\U0001d5be"
        "\U0001d5f2\U0001d626\U0001d65a\U0001d68e\U0001f114\U0001f154\U0001f174\U0001f1ea"
        "\U000e0045\U000e0065"
    ),
    "l": (
        "\u013a\u013c\u013e\u013f\u0140\u0141\u0142\u0196\u019a\u01c0\u01c8\u0234\u023d\u026b"
        "\u026c\u026d\u029f\u02e1\u0399\u0406\u04c0\u05c0\u05d5\u05df\u0627\u0661\u06f1\u07ca"
        "\u16c1\u1d0c\u1d85\u1dab\u1e37\u1e39\u1e3b\u1e3d\u2097\u2110\u2111\u2113\u2160\u217c"
        "\u2223\u23fd\u24a7\u24db\u2c60\u2c61\u2c62\u2c92\u2d4f\ua4f2\ua748\ua749\ua78e\ua7ad"
        "\uab37\uab38\uab39\ufe8d\ufe8e\uff29\uff4c\uffe8\U0001028a\U00010309\U00010320"
        "\U00016f28\U0001d408\U0001d425\U0001d43c\U0001d459\U0001d470\U0001d48d\U0001d4c1"
        "\U0001d4d8\U0001d4f5\U0001d529\U0001d540\U0001d55d\U0001d574\U0001d591\U0001d5a8"
        "\U0001d5c5\U0001d5dc\U0001d5f9\U0001d610\U0001d62d\U0001d644\U0001d661\U0001d678"
        "\U0001d695\U0001d6b0\U0001d6ea\U0001d724\U0001d75e\U0001d798\U0001d7cf\U0001d7d9"
        "\U0001d7e3\U0001d7ed\U0001d7f7\U0001df04\U0001df11\U0001df13\U0001e8c7\U0001ee00"
        "\U0001ee80\U0001f11b\U0001f15b\U0001f17b\U0001f1f1\U0001fbf1\U000e004c\U000e006c"
    ),
    "ln": "\u33d1",
    "n": (
        "\u00f1\u0144\u0146\u0148\u019d\u019e\u01cb\u01f9\u0220\u0235\u0272\u0273\u0274\u0578"
        "\u057c\u1d70\u1d87\u1db0\u1e45\u1e47\u1e49\u1e4b\u207f\u2099\u24a9\u24dd\ua790\ua791"
        "\ua7a4\ua7a5\uab3b\uff4e\U0001d427\U0001d45b\U0001d48f\U0001d4c3\U0001d4f7\U0001d52b"
        "\U0001d55f\U0001d593\U0001d5c7\U0001d5fb\U0001d62f\U0001d663\U0001d697\U0001f11d"
        "\U0001f15d\U0001f17d\U0001f1f3\U000e004e\U000e006e"
    ),
    "ns": "\u33b1",
    "o": (
        "\u00ba\u00d8\u00f2\u00f3\u00f4\u00f5\u00f6\u00f8\u014d\u014f\u0151\u019f\u01a1\u01d2"
        "\u01eb\u01ed\u01fe\u01ff\u020d\u020f\u022b\u022d\u022f\u0231\u03bf\u03c3\u043e\u0585"
        "\u05e1\u0647\u0665\u06be\u06c1\u06d5\u06f5\u0966\u0a66\u0ae6\u0be6\u0c02\u0c66\u0c82"
        "\u0ce6\u0d02\u0d20\u0d66\u0d82\u0e50\u0ed0\u101d\u1040\u10ff\u1d0f\u1d11\u1d52\u1e4d"
        "\u1e4f\u1e51\u1e53\u1ecd\u1ecf\u1ed1\u1ed3\u1ed5\u1ed7\u1ed9\u1edb\u1edd\u1edf\u1ee1"
        "\u1ee3\u2092\u2134\u24aa\u24de\u2c7a\u2c9f\ua74a\ua74b\ua74c\ua74d\uab3d\ufba6\ufba7"
        "\ufba8\ufba9\ufbaa\ufbab\ufbac\ufbad\ufee9\ufeea\ufeeb\ufeec\uff4f\U0001042c"
        "\U000104ea\U000118c8\U000118d7\U0001d428\U0001d45c\U0001d490\U0001d4f8\U0001d52c"
        "\U0001d560\U0001d594\U0001d5c8\U0001d5fc\U0001d630\U0001d664\U0001d698\U0001d6d0"
        "\U0001d6d4\U0001d70a\U0001d70e\U0001d744\U0001d748\U0001d77e\U0001d782\U0001d7b8"
        "\U0001d7bc\U0001df1b\U0001ee24\U0001ee64\U0001ee84\U0001f11e\U0001f15e\U0001f17e"
        "\U0001f1f4\U000e004f\U000e006f"
    ),
    "p": (
        "\u01a4\u01a5\u03c1\u03f1\u0440\u1d18\u1d56\u1d71\u1d7d\u1d88\u1e55\u1e57\u209a\u2374"
        "\u24ab\u24df\u2c63\u2ca3\ua750\ua751\ua752\ua753\ua754\ua755\uff50\U0001d429"
        "\U0001d45d\U0001d491\U0001d4c5\U0001d4f9\U0001d52d\U0001d561\U0001d595\U0001d5c9"
        "\U0001d5fd\U0001d631\U0001d665\U0001d699\U0001d6d2\U0001d6e0\U0001d70c\U0001d71a"
        "\U0001d746\U0001d754\U0001d780\U0001d78e\U0001d7ba\U0001d7c8\U0001f11f\U0001f15f"
        "\U0001f17f\U0001f18a\U0001f1f5\U000e0050\U000e0070"
    ),
    "ps": "\u33b0",
    "r": (
        "\u0155\u0157\u0159\u0211\u0213\u024c\u024d\u027c\u027d\u027e\u0280\u02b3\u0433\u1d26"
        "\u1d63\u1d72\u1d73\u1d89\u1e59\u1e5b\u1e5d\u1e5f\u24ad\u24e1\u2c64\u2c85\ua7a6\ua7a7"
        "\uab46\uab47\uab48\uab49\uab81\uff52\U000107aa\U0001d42b\U0001d45f\U0001d493"
        "\U0001d4c7\U0001d4fb\U0001d52f\U0001d563\U0001d597\U0001d5cb\U0001d5ff\U0001d633"
        "\U0001d667\U0001d69b\U0001df16\U0001f121\U0001f161\U0001f181\U0001f1f7\U000e0052"
        "\U000e0072"
    ),
    "s": (
        "\u015b\u015d\u015f\u0161\u017f\u01bd\u0219\u023f\u0282\u02e2\u0455\u1d74\u1d8a\u1e61"
        "\u1e63\u1e65\u1e67\u1e69\u1e9b\u209b\u24ae\u24e2\u2c7e\ua731\ua7a8\ua7a9\ua7c5\ua7c9"
        "\ua7ca\uabaa\uff53\U00010448\U000118c1\U0001d42c\U0001d460\U0001d494\U0001d4c8"
        "\U0001d4fc\U0001d530\U0001d564\U0001d598\U0001d5cc\U0001d600\U0001d634\U0001d668"
        "\U0001d69c\U0001df1e\U0001f122\U0001f12a\U0001f162\U0001f182\U0001f1f8\U000e0053"
        "\U000e0073"
    ),
    "sr": "\u33db",
    "st": "\ufb05\ufb06",
    "t": (
        "\u0163\u0165\u0166\u0167\u01ab\u01ac\u01ad\u01ae\u021b\u0236\u023e\u0288\u1d1b\u1d57"
        "\u1d75\u1e6b\u1e6d\u1e6f\u1e71\u1e97\u209c\u24af\u24e3\u2c66\uff54\U0001d42d"
        "\U0001d461\U0001d495\U0001d4c9\U0001d4fd\U0001d531\U0001d565\U0001d599\U0001d5cd"
        "\U0001d601\U0001d635\U0001d669\U0001d69d\U0001df09\U0001f123\U0001f163\U0001f183"
        "\U0001f1f9\U000e0054\U000e0074"
    ),
    "u": (
        "\u00f9\u00fa\u00fb\u00fc\u0169\u016b\u016d\u016f\u0171\u0173\u01b0\u01d4\u01d6\u01d8"
        "\u01da\u01dc\u0215\u0217\u028b\u03c5\u057d\u1d1c\u1d58\u1d64\u1d99\u1db8\u1e73\u1e75"
        "\u1e77\u1e79\u1e7b\u1ee5\u1ee7\u1ee9\u1eeb\u1eed\u1eef\u1ef1\u24b0\u24e4\ua79f\ua7b8"
        "\ua7b9\uab4e\uab52\uff55\U000104f6\U000118d8\U0001d42e\U0001d462\U0001d496\U0001d4ca"
        "\U0001d4fe\U0001d532\U0001d566\U0001d59a\U0001d5ce\U0001d602\U0001d636\U0001d66a"
        "\U0001d69e\U0001d6d6\U0001d710\U0001d74a\U0001d784\U0001d7be\U0001f124\U0001f164"
        "\U0001f184\U0001f1fa\U000e0055\U000e0075"
    ),
}

#: ASCII characters that look like one of the tag's letters (``1`` and ``I`` for ``l``).
ASCII_ALIKES: dict[str, str] = {"O": "0", "l": "|1I"}
