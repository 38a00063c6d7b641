"""Chinese extraction cases (format: ``tests/extraction_cases/__init__.py``)."""

CASES = r"""
# 名字
name | 我叫李娜。 | name=李娜
name | 你好，我是陈思远。 | name=陈思远
name | 我的名字是周杰。 | name=周杰
name | 大家都叫我阿强。 | name=阿强
name | 叫我小雨就好。 | name=小雨
name | 我叫Kevin，是新来的。 | name=Kevin
name | 我是北京人。 | | name=北京人
name | 我是张经理。 |
name | 我叫了外卖。 |
# 年龄
age | 我今年35岁。 | age=35
age | 我28岁了。 | age=28
age | 我今年三十岁。 | age=30
age | 我刚满十八岁。 | age=18
age | 今年我42岁。 | age=42
age | 我已经六十五岁了。 | age=65
age | 我二十五岁，还在读研。 | age=25
age | 我儿子今年5岁。 | | age=5
# 过敏与病症
allergy | 我对青霉素过敏。 | allergy=青霉素
allergy | 我对花生严重过敏。 | allergy=花生
allergy | 我海鲜过敏。 | allergy=海鲜
allergy | 我对猫毛和花粉过敏。 | allergy=猫毛; allergy=花粉
allergy | 我一吃芒果就过敏。 | allergy=芒果
allergy | 我对牛奶、鸡蛋和大豆过敏。 | allergy=牛奶; allergy=鸡蛋; allergy=大豆
allergy | 我有尘螨过敏。 | allergy=尘螨
allergy | 我妹妹对猫过敏。 | | allergy=猫
cond | 我有高血压。 | cond=高血压
cond | 我被诊断出二型糖尿病。 | cond=二型糖尿病
cond | 我患有哮喘。 | cond=哮喘
cond | 我去年确诊了抑郁症。 | cond=抑郁症
cond | 我一直有偏头痛。 | cond=偏头痛
cond | 我有乳糖不耐受。 | cond=乳糖不耐受
cond | 我爸爸有糖尿病。 | | cond=糖尿病
# 喜好
like | 我喜欢爬山。 | like=爬山
like | 我非常喜欢看电影。 | like=电影
like | 我特别爱吃火锅。 | like=火锅
like | 我最喜欢的颜色是蓝色。 | like=蓝色
like | 爵士乐是我最喜欢的音乐。 | like=爵士乐
like | 我爱喝咖啡。 | like=咖啡
like | 我对摄影很感兴趣。 | like=摄影
like | 我喜欢猫和狗。 | like=猫; like=狗
like | 我挺喜欢打羽毛球的。 | like=羽毛球
like | 我超爱听周杰伦的歌。 | like=周杰伦的歌
like | 我也喜欢跑步。 | like=跑步
like | 我真的很喜欢旅游。 | like=旅游
like | 我平时喜欢看书、下棋和钓鱼。 | like=看书; like=下棋; like=钓鱼
like | 我从小就热爱音乐。 | like=音乐
# 不喜欢
dislike | 我不喜欢香菜。 | dislike=香菜
dislike | 我讨厌下雨天。 | dislike=下雨天
dislike | 我不吃辣。 | dislike=辣
dislike | 我受不了噪音。 | dislike=噪音
dislike | 我一点也不喜欢加班。 | dislike=加班
dislike | 我不太喜欢人多的地方。 | dislike=人多的地方
dislike | 我对足球不感兴趣。 | dislike=足球
dislike | 我不喝酒。 | dislike=酒
dislike | 我最不喜欢的水果是榴莲。 | dislike=榴莲
dislike | 我很讨厌排队。 | dislike=排队
# 一句多事
multi | 我喜欢吃辣，但是不喜欢香菜。 | like=辣; dislike=香菜
multi | 我叫王芳，今年32岁。 | name=王芳; age=32
multi | 我住在杭州，是一名程序员。 | live=杭州; job=程序员
multi | 我喜欢喝茶，不过不喜欢咖啡。 | like=茶; dislike=咖啡
multi | 我是护士，我对乳胶过敏。 | job=护士; allergy=乳胶
multi | 我爱吃甜食，但我讨厌苦瓜。 | like=甜食; dislike=苦瓜
multi | 我今年40岁，住在成都。 | age=40; live=成都
# 职业
job | 我是一名医生。 | job=医生
job | 我是老师。 | job=老师
job | 我在医院当护士。 | job=护士
job | 我是一个程序员。 | job=程序员
job | 我的工作是律师。 | job=律师
job | 我现在是研究生。 | job=研究生
job | 我在一家公司做会计。 | job=会计
job | 我是一位设计师。 | job=设计师
job | 我妈妈是一名医生。 | | job=医生
job | 我老公是工程师。 | | job=工程师
# 住处
live | 我住在北京。 | live=北京
live | 我们家住在广州。 | live=广州
live | 我上个月搬到深圳了。 | live=深圳
live | 我们去年搬到了上海。 | live=上海
live | 我在南京住了十年。 | live=南京
live | 我现在住在西安。 | live=西安
live | 我家在重庆。 | live=重庆
live | 我爸妈住在天津。 | | live=天津
# 关系
relation | 王老师是我的导师。 | advisor=王老师
relation | 张经理是我的领导。 | manager=张经理
relation | 我的导师是李教授。 | advisor=李教授
relation | 小明是我儿子。 | child=小明
relation | 我的老婆叫刘丽。 | spouse=刘丽
relation | 我老公叫陈刚。 | spouse=陈刚
relation | 我女儿叫朵朵。 | child=朵朵
relation | 我有两个孩子，乐乐和思思。 | child=乐乐; child=思思
relation | 李华是我的同事。 | colleague=李华
relation | 我的好朋友叫小军。 | friend=小军
relation | 赵总是我的老板。 | manager=赵总
relation | 我妈妈是老师。 | | parent=老师
# 困难与擅长
struggle | 我对微积分不太理解。 | struggle=微积分
struggle | 我数学不好。 | struggle=数学
struggle | 我不擅长做饭。 | struggle=做饭
struggle | 物理对我来说太难了。 | struggle=物理
struggle | 我英语很差。 | struggle=英语
struggle | 我对编程一直不太懂。 | struggle=编程
struggle | 我心情不好。 | | struggle=心情
skill | 我擅长画画。 | master=画画
skill | 我精通日语。 | master=日语
# 否定：转述、问题、假设、过去、他人
hearsay | 听说他喜欢爵士乐。 | | like=爵士乐
hearsay | 我妈说我对猫过敏。 | | allergy=猫
hearsay | 她说她住在上海。 | | live=上海
question | 我喜欢爵士乐吗？ | | like=爵士乐
question | 我是不是对花生过敏？ | | allergy=花生
question | 你知道我住在哪里吗 |
question | 我多大了？ |
hypothetical | 如果我有钱，我会住在巴黎。 | | live=巴黎
hypothetical | 假如我是医生就好了。 | | job=医生
hypothetical | 要是我住在海边该多好。 | | live=海边
used_to | 我以前住在上海。 | | live=上海
used_to | 我以前是老师。 | | job=老师
used_to | 我小时候喜欢吃糖。 | | like=吃糖
other | 我朋友喜欢喝咖啡。 | | like=咖啡
other | 他是一名医生。 | | job=医生
other | 我弟弟住在武汉。 | | live=武汉
other | 我同事对海鲜过敏。 | | allergy=海鲜
# 状态变化
change | 我住在北京。 || 我上个月搬到深圳了。 | live=深圳 | live=北京
change | 我喜欢咖啡。 || 我不再喜欢咖啡了。 | dislike=咖啡 | like=咖啡
change | 我住在上海。 || 我现在不住在上海了。 | | live=上海
change | 我是老师。 || 我已经不是老师了。 | | job=老师
change | 我喜欢跑步。 || 我现在不喜欢跑步了。 | dislike=跑步 | like=跑步
change | 我住在广州。 || 我们搬到了厦门。 | live=厦门 | live=广州
change | 我讨厌香菜。 || 我现在喜欢香菜了。 | like=香菜 | dislike=香菜
change | 我今年29岁。 || 我今年30岁了。 | age=30 | age=29
# 更正
correction | 我今年30岁。 || 不对，是31岁。 | age=31 | age=30
correction | 我住在苏州。 || 说错了，我住在无锡。 | live=无锡 | live=苏州
correction | 我叫李明。 || 不是，我叫李鸣。 | name=李鸣 | name=李明
# second batch: written after the rules, scored before any rule was tuned on it
name | 大家好，我叫赵磊。 | name=赵磊
name | 我的名字叫林晓。 | name=林晓
age | 我今年刚好四十岁。 | age=40
age | 我现在26岁。 | age=26
allergy | 我对虾过敏。 | allergy=虾
allergy | 我对酒精有点过敏。 | allergy=酒精
cond | 我患有过敏性鼻炎。 | cond=过敏性鼻炎
cond | 我有轻度抑郁症。 | cond=抑郁症
like | 我很喜欢吃寿司。 | like=寿司
like | 我特别喜欢听古典音乐。 | like=古典音乐
like | 我最爱的运动是游泳。 | like=游泳
dislike | 我很不喜欢吵闹的环境。 | dislike=吵闹的环境
dislike | 我讨厌早起。 | dislike=早起
dislike | 我不爱吃青椒。 | dislike=青椒
multi | 我喜欢看书，但是讨厌写作业。 | like=看书; dislike=写作业
multi | 我是学生，今年20岁。 | job=学生; age=20
job | 我是一名软件工程师。 | job=软件工程师
job | 我在学校当老师。 | job=老师
live | 我住在杭州西湖区。 | live=杭州西湖区
live | 我们上周搬到了苏州。 | live=苏州
relation | 我的妻子叫王静。 | spouse=王静
relation | 刘老师是我的导师。 | advisor=刘老师
relation | 我的经理是孙总。 | manager=孙总
struggle | 我对统计学不太懂。 | struggle=统计学
struggle | 我不擅长跟人打交道。 | struggle=跟人打交道
negative | 我姐姐喜欢跳舞。 | | like=跳舞
negative | 如果我住在北京就好了。 | | live=北京
negative | 我对猫过敏吗？ | | allergy=猫
negative | 他说他今年30岁。 | | age=30
negative | 我以前住在南京。 | | live=南京
change | 我喜欢喝可乐。 || 我不喝可乐了。 | dislike=可乐 | like=可乐
change | 我住在武汉。 || 我去年搬到了长沙。 | live=长沙 | live=武汉
# third batch: likewise scored before tuning
name | 我叫张伟。 | name=张伟
age | 我今年四十二岁。 | age=42
allergy | 我对芒果过敏。 | allergy=芒果
like | 我很喜欢画画。 | like=画画
like | 我喜欢猫。 | like=猫
dislike | 我不喜欢吃肥肉。 | dislike=肥肉
job | 我是一名律师。 | job=律师
live | 我住在成都。 | live=成都
relation | 陈老师是我的导师。 | advisor=陈老师
struggle | 我对化学不太理解。 | struggle=化学
negative | 我哥哥是医生。 | | job=医生
negative | 你喜欢咖啡吗？ | | like=咖啡
change | 我在上海住。 || 我们搬到了北京。 | live=北京 | live=上海
# everyday chat that states no fact about the user
chat | 我今天很累。 |
chat | 我喜欢这个主意。 |
chat | 我不喜欢这样。 |
chat | 我在开会。 |
chat | 我是说真的。 |
chat | 我住院了。 |
chat | 我们在北京见面吧。 |
chat | 我叫车了。 |
chat | 我有点饿。 |
chat | 我对这个结果很满意。 |
# fourth batch: harder idioms, scored before tuning
name | 你好，我叫何佳。 | name=何佳
age | 我快四十了。 |
allergy | 我对酒精过敏。 | allergy=酒精
like | 我特别喜欢逛博物馆。 | like=逛博物馆
dislike | 我最讨厌堵车。 | dislike=堵车
job | 我在银行当柜员。 | job=柜员
live | 我现在住在大连。 | live=大连
relation | 我的儿子叫天天。 | child=天天
struggle | 我对物理一直不太懂。 | struggle=物理
negative | 我妈妈不喜欢猫。 | | dislike=猫
change | 我是学生。 || 我已经毕业了，现在是工程师。 | job=工程师 | job=学生
"""
